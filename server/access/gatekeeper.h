// Gatekeeper: whom a closed relay lets in besides its members (docs/reference/protocol.md §6.2,
// §6.7) — the legacy pubkey allow-list that gates key-only AUTH and dev-mode
// uploads, and agents that a member vouches for with a NIP-OA attestation (in
// an AUTH event's tag, or an HTTP request's X-Auth-Tag header).
//
// Any thread: the allow-list is read-only once the loops run; the owner link a
// vouch records goes through the ProfileDirectory's own lock.
#pragma once

#include <optional>
#include <unordered_set>
#include <vector>

#include "engine/hex.h"
#include "engine/pubkey_allowlist.h"
#include "net/http.h"
#include "server/access/nip_oa.h"
#include "server/access/relay_membership.h"
#include "server/access/relay_policy.h"
#include "server/team/profile_directory.h"

namespace buzz::server {

class Gatekeeper {
 public:
  // `allow_nip_oa`: BUZZ_ALLOW_NIP_OA_AUTH; without it nobody is vouched for.
  Gatekeeper(bool allow_nip_oa, const RelayMembership& membership, ProfileDirectory& profiles)
      : allow_nip_oa_(allow_nip_oa), membership_(membership), profiles_(profiles) {}

  // Before the loops run: BUZZ_PUBKEY_ALLOWLIST; only these pubkeys may AUTH by key alone.
  void restrict_to(const std::vector<engine::AllowedPubkey>& allowed);
  bool allowlisted(const engine::Pubkey& pk) const { return !allowlist_ || allowlist_->count(pk); }

  // Before the loops run: the bans of NIP-86 (docs/access.md, "Administering a running relay").
  void set_policy(RelayPolicy* policy) { policy_ = policy; }
  RelayPolicy* policy() const { return policy_; }
  // Whether pk is banned: refused at AUTH, on EVENT and over HTTP, member or not.
  bool banned(const engine::Pubkey& pk) const { return policy_ && policy_->pubkey_banned(pk); }

  // Whether `agent`, not a member, is admitted on its owner's attestation:
  // NIP-OA enabled, a valid attestation, an owner who is a member. Records
  // agent → owner (first write wins).
  bool vouched_by_owner(const std::optional<OwnerAttestation>& a, const engine::Pubkey& agent, const AttestedUse& use);
  // Whether the author of a verified AUTH event (kind 22242) may use the relay:
  // every pubkey on an open relay; a member, or an agent its owner vouches for
  // in the event's `auth` tag, on a closed one (docs/reference/protocol.md §6.2, §6.7).
  bool admits_auth(const engine::Event& auth) {
    return !membership_.enforced() || membership_.role(auth.pubkey) ||
           vouched_by_owner(attestation_of(auth), auth.pubkey, {auth.kind, auth.created_at});
  }
  // After admits_auth: the member whose attestation let the author in (an
  // agent that is not a member itself), or nullopt. A session keeps it, so
  // the agent leaves with its owner (docs/access.md).
  std::optional<engine::Pubkey> vouching_owner(const engine::Event& auth) const {
    if (!membership_.enforced() || membership_.role(auth.pubkey)) return std::nullopt;
    std::optional<OwnerAttestation> a = attestation_of(auth);
    return a ? std::optional(a->owner) : std::nullopt;
  }
  // Whether a session let in as `pk` on `owner`'s word may still act: the
  // owner is still a member (or the agent has become one itself).
  bool still_vouched(const engine::Pubkey& pk, const engine::Pubkey& owner) const {
    return !membership_.enforced() || membership_.role(owner) || membership_.role(pk);
  }
  // Whether pk may still use a closed relay now, not only when it signed in: a
  // member, or (NIP-OA on) an agent whose recorded owner still is one. What
  // acts later on pk's behalf (a workflow run) asks this when it acts.
  bool admitted(const engine::Pubkey& pk) const;
  // The same for an HTTP request's X-Auth-Tag header (docs/reference/rest-api.md §1.5).
  enum class HeaderVouch : uint8_t { kVouched, kNot, kMultipleHeaders };
  HeaderVouch vouched_by_header(const net::HttpRequest& req, const engine::Pubkey& agent, const AttestedUse& use);

 private:
  const bool allow_nip_oa_;
  const RelayMembership& membership_;
  ProfileDirectory& profiles_;
  RelayPolicy* policy_ = nullptr;
  std::optional<std::unordered_set<engine::Pubkey, engine::KeyBytesHash>> allowlist_;
};

}  // namespace buzz::server
