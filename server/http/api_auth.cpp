// Who is calling the REST API (docs/reference/rest-api.md §1): a bearer API token or a NIP-98
// signed request, then the relay-membership gate of a closed relay (§1.5) —
// the proof every HTTP caller shares (server/access/key_proof.h), answered
// here in the REST API's words — then the scope the endpoint needs (§1.2). The unverified X-Pubkey "dev
// mode" of the original is taken only when the operator asked for it and the
// relay listens on loopback (BUZZ_REQUIRE_AUTH_TOKEN=false, §1.4); otherwise
// every REST identity here is proven.
#include "engine/clock.h"
#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "server/access/auth_audit.h"
#include "server/access/key_proof.h"
#include "server/access/nip98.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/http/http_api.h"

namespace buzz::server {

namespace {

// The REST answer to a failed proof (docs/reference/rest-api.md §1).
net::HttpResponse refused_proof(const ProofError& e, bool minting) {
  switch (e.failure) {
    case ProofFailure::kNoAuthorization: return api_error(401, "authentication required");
    case ProofFailure::kUnknownScheme:
    case ProofFailure::kNotAnApiToken: return api_error(401, "authentication failed");
    case ProofFailure::kTokenStore: return api_error(503, e.detail);
    case ProofFailure::kUnknownToken: return api_error(401, "invalid_token");
    case ProofFailure::kRevokedToken: return api_error(401, "token_revoked");
    case ProofFailure::kExpiredToken: return api_error(401, "token_expired");
    case ProofFailure::kSignature: break;
  }
  if (minting && e.detail == "NIP-98: payload tag required") {
    return api_error(401, "invalid_auth", "NIP-98 payload tag required for POST /api/tokens");
  }
  if (minting) return api_error(401, "invalid_auth", "NIP-98 verification failed");
  return api_error(401, e.detail);
}

}  // namespace

std::optional<net::HttpResponse> HttpApi::authenticate_http(const net::HttpRequest& req, std::optional<Scope> need,
                                                          Caller* who, AuthMode mode) {
  const bool minting = mode == AuthMode::kMint;
  std::string_view auth = req.header("authorization");
  const uint64_t now = engine::unix_now();
  KeyProof proof;
  // The development mode: with no Authorization, X-Pubkey names the caller,
  // unsigned, with every scope (never for minting a token). Logged at each use.
  const bool dev = options_.pubkey_header_auth && auth.empty() && !minting;
  const std::string_view claimed = dev ? req.header("x-pubkey") : std::string_view();
  const bool by_header = !claimed.empty();
  if (by_header) {
    if (claimed.size() != 64 || !engine::from_hex_any_case(claimed, proof.pubkey.data(), 32)) {
      return api_error(401, "authentication failed", "X-Pubkey must be 64 hex characters");
    }
    log_warn("X-Pubkey development authentication: caller not verified",
             {{"pubkey", engine::to_hex(proof.pubkey)}, {"method", std::string(req.method)},
              {"path", std::string(req.path)}, {"peer", std::string(req.peer)}});
    proof.event_kind = kind::kHttpAuth;  // vouched for as a signed request would be
  } else if (mode == AuthMode::kNip98Only && !auth.starts_with("Nostr ")) {
    // The bridge speaks NIP-98 only, in upstream HEAD's words (docs/reference/rest-api.md §1.3).
    return api_error(401, "missing Nostr auth");
  } else {
    auto proven = s_.prover.prove(req, {.url = signed_url_, .body = req.body, .payload_required = minting}, now);
    if (const ProofError* e = std::get_if<ProofError>(&proven)) return refused_proof(*e, minting);
    proof = std::move(std::get<KeyProof>(proven));
  }
  who->pubkey = proof.pubkey;
  who->grant = std::move(proof.grant);
  who->token = proof.token;
  who->unverified = by_header;
  // Calls that change state are audited like a WebSocket AUTH (docs/reference/audit.md §5.2).
  const bool mutating = req.method != "GET" && req.method != "HEAD";
  const std::string_view method = who->token ? "token" : by_header ? "x-pubkey" : "nip98";
  switch (s_.prover.standing(req, proof, now, mode != AuthMode::kNoMembershipGate)) {
    case KeyProver::Standing::kAdmitted: break;
    case KeyProver::Standing::kBanned: return api_error(403, "banned", "pubkey is banned");
    case KeyProver::Standing::kMultipleVouchHeaders:
      return api_error(400, "invalid_auth_tag", "multiple X-Auth-Tag headers not allowed");
    case KeyProver::Standing::kNotMember:
      if (mutating && s_.throttle.audit_auth_failure(req.peer)) {
        s_.writer.submit_audit(auth_audit_record(who->pubkey, method, "not_relay_member"));
      }
      return api_error(403, "relay_membership_required", "You must be a relay member to access this relay");
  }
  // Only past the gate and the API rate does a request's id take a place in the
  // bounded replay cache: a non-member cannot fill it, and a member only at its rate.
  if (auto refused = s_.throttle.admit_api_call(who->pubkey)) return refused;
  if (proof.signed_request) {
    Nip98ReplayCache::Use use = s_.prover.first_use(*proof.signed_request, now);
    if (use == Nip98ReplayCache::Use::kReplay) return api_error(401, "NIP-98: replay detected");
    if (use == Nip98ReplayCache::Use::kFull) return api_error(503, "NIP-98: too many signed requests in flight, retry");
  }
  if (auto ensured = s_.profiles.ensure(who->pubkey); !ensured) return api_error(500, "internal server error");
  if (mutating && !s_.writer.submit_audit(auth_audit_record(who->pubkey, method, ""))) {
    return api_error(503, "error: audit backlog full, retry");
  }
  if (need && !who->grant.has(*need)) {
    return api_error(403, "insufficient_scope", "token missing required scope: " + std::string(scope_name(*need)));
  }
  return std::nullopt;
}

std::optional<net::HttpResponse> HttpApi::check_channel(const Caller& who, std::string_view channel) {
  if (!who.grant.allows_channel(channel)) {
    return api_error(403, "channel_not_permitted", "Token does not have access to this channel");
  }
  // A channel that does not exist answers like one the caller may not read (§1.6).
  if (!s_.team.can_read(channel, who.pubkey)) return api_error(403, "not a member of this channel");
  return std::nullopt;
}

}  // namespace buzz::server
