// Proving a key over HTTP, one step for every caller that takes an
// Authorization header: the REST API and NIP-86 (server/http) and the reader of
// a channel's blob (server/media). The header is a bearer API token, looked up,
// or a NIP-98 signature of this very request; then a banned key is refused and,
// on a closed relay, a non-member that no member vouches for (X-Auth-Tag); and
// a signed request's id is used once, in the one replay cache of the relay.
// Each caller answers in its own words — REST its statuses and messages, media
// 401 for any failed proof and 404 for a key without the right — and keeps its
// own other proofs (the development X-Pubkey, a Blossom `get`). The API rate
// is counted between standing() and first_use(), by the caller's Throttle, so
// that only a key past the gate and the rate takes a place in the cache
// (docs/access.md, "Proving a key over HTTP").
//
// Any thread: the token table and the replay cache take their own locks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "engine/api_tokens.h"
#include "engine/hex.h"
#include "net/http.h"
#include "server/access/gatekeeper.h"
#include "server/access/grant.h"
#include "server/access/nip98.h"
#include "server/access/relay_membership.h"

namespace buzz::server {

struct KeyProof {
  engine::Pubkey pubkey{};
  Grant grant = {};                            // a token's; a signed request is a session: every scope
  std::optional<engine::TokenHash> token = {};  // set when a bearer token proved the key
  std::optional<Nip98Signer> signed_request = {};  // a NIP-98 signature, for the replay cache
  std::optional<uint32_t> event_kind = {};  // the event that proved the key: a NIP-OA vouch's condition
};

enum class ProofFailure : uint8_t {
  kNoAuthorization,  // no Authorization header
  kUnknownScheme,    // neither "Bearer " nor "Nostr "
  kNotAnApiToken,    // a bearer value without the token prefix
  kUnknownToken,
  kRevokedToken,
  kExpiredToken,
  kTokenStore,       // the token table could not be read
  kSignature,        // a Nostr header that signs this request for none of the URLs
};

struct ProofError {
  ProofFailure failure;
  std::string detail;  // for the log; kSignature and kTokenStore: the reason
};

// What a NIP-98 signature must cover.
struct SignedRequestRules {
  std::string_view url = {};        // the http(s) base URL the `u` tag names (nip98_base_url)
  std::string_view other_url = {};  // or this one, when set and different (media on its own host)
  std::string_view body = {};       // the payload a `payload` tag is checked against
  bool payload_required = false;
};

class KeyProver {
 public:
  KeyProver(engine::ApiTokens& tokens, Gatekeeper& gatekeeper, const RelayMembership& membership)
      : tokens_(tokens), gatekeeper_(gatekeeper), membership_(membership) {}

  // Who the Authorization header proves is calling. A token it proves is touched (last used).
  std::variant<KeyProof, ProofError> prove(const net::HttpRequest& req, const SignedRequestRules& rules, uint64_t now);

  enum class Standing : uint8_t { kAdmitted, kBanned, kMultipleVouchHeaders, kNotMember };
  // A proven key's standing on the relay: banned, or (with `membership_gate`,
  // on a closed relay) neither a member nor vouched for by X-Auth-Tag.
  Standing standing(const net::HttpRequest& req, const KeyProof& proof, uint64_t now, bool membership_gate = true);

  // After the caller's API rate: a signed request's first use (docs/reference/rest-api.md §1.3).
  Nip98ReplayCache::Use first_use(const Nip98Signer& signed_request, uint64_t now) {
    return replays_.first_use(signed_request, now);
  }

 private:
  std::variant<KeyProof, ProofError> prove_token(std::string_view token, uint64_t now);

  engine::ApiTokens& tokens_;
  Gatekeeper& gatekeeper_;
  const RelayMembership& membership_;
  Nip98ReplayCache replays_;
};

}  // namespace buzz::server
