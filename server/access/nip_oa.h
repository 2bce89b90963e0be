// NIP-OA owner attestation (docs/reference/protocol.md §6.7, docs/reference/rest-api.md §1.5): an owner's
// signed statement that an agent key acts for them, as the tag
// ["auth", owner_hex, conditions, sig_hex]. The signature is BIP-340 over
// SHA-256("nostr:agent-auth:" + agent_hex + ":" + conditions); the conditions
// (`kind=N`, `created_at<T`, `created_at>T`, joined by `&`, as in NIP-26)
// must hold for the event that authenticates the agent. A closed relay with
// BUZZ_ALLOW_NIP_OA_AUTH admits such an agent when its owner is a member.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/event.h"
#include "engine/result.h"
#include "engine/signature.h"

namespace buzz::server {

struct OwnerAttestation {
  engine::Pubkey owner{};
  std::string conditions;
  engine::Sig sig{};
};

// The attestation in an AUTH event: its one `auth` tag (none when two or more).
std::optional<OwnerAttestation> attestation_of(const engine::Event& e);
// From the JSON array an X-Auth-Tag header carries.
engine::Result<OwnerAttestation> parse_attestation_json(std::string_view json);

// What the conditions are checked against: the authenticating event's kind
// (none for a bearer token: any kind condition then fails) and time.
struct AttestedUse {
  std::optional<uint32_t> kind;
  uint64_t created_at = 0;
};

// True when `owner` signed this attestation for `agent` and every condition holds.
bool attestation_valid(const OwnerAttestation& a, const engine::Pubkey& agent, const AttestedUse& use);

// What an owner hands their agent (tests, and tools that mint attestations).
OwnerAttestation sign_attestation(const engine::Keypair& owner, const engine::Pubkey& agent, std::string conditions);
// The tag as JSON: ["auth", owner_hex, conditions, sig_hex], what X-Auth-Tag carries.
std::string attestation_json(const OwnerAttestation& a);

}  // namespace buzz::server
