// Who is calling the REST API (docs/reference/rest-api.md §1): a bearer API token or a NIP-98
// signed request, then the relay-membership gate of a closed relay (§1.5),
// then the scope the endpoint needs (§1.2). The unverified X-Pubkey "dev
// mode" of the original is taken only when the operator asked for it and the
// relay listens on loopback (BUZZ_REQUIRE_AUTH_TOKEN=false, §1.4); otherwise
// every REST identity here is proven.
#include "engine/clock.h"
#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "server/access/auth_audit.h"
#include "server/access/nip98.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/http/http_api.h"

namespace buzz::server {

std::optional<net::HttpResponse> HttpApi::authenticate_http(const net::HttpRequest& req, std::optional<Scope> need,
                                                          Caller* who, AuthMode mode) {
  const bool minting = mode == AuthMode::kMint;
  std::string_view auth = req.header("authorization");
  const uint64_t now = engine::unix_now();
  std::optional<Nip98Signer> nip98_event;  // a signed request, for the replay cache
  // The development mode: with no Authorization, X-Pubkey names the caller,
  // unsigned, with every scope (never for minting a token). Logged at each use.
  const bool dev = options_.pubkey_header_auth && auth.empty() && !minting;
  const std::string_view claimed = dev ? req.header("x-pubkey") : std::string_view();
  const bool by_header = !claimed.empty();
  if (by_header) {
    if (claimed.size() != 64 || !engine::from_hex_any_case(claimed, who->pubkey.data(), 32)) {
      return api_error(401, "authentication failed", "X-Pubkey must be 64 hex characters");
    }
    log_warn("X-Pubkey development authentication: caller not verified",
             {{"pubkey", engine::to_hex(who->pubkey)}, {"method", std::string(req.method)}, {"path", std::string(req.path)},
              {"peer", std::string(req.peer)}});
    who->grant = Grant{};
    who->token.reset();
  } else if (mode == AuthMode::kNip98Only && !auth.starts_with("Nostr ")) {
    // The bridge speaks NIP-98 only, in upstream HEAD's words (docs/reference/rest-api.md §1.3).
    return api_error(401, "missing Nostr auth");
  } else if (auth.empty()) {
    return api_error(401, "authentication required");
  } else if (auth.starts_with("Bearer ")) {
    std::string_view token = auth.substr(7);
    if (!token.starts_with(engine::kTokenPrefix)) return api_error(401, "authentication failed");
    auto found = s_.tokens.find(engine::hash_token(token));
    if (!found) return api_error(503, found.error());
    const std::optional<engine::ApiToken>& t = *found;
    if (!t) return api_error(401, "invalid_token");
    if (t->revoked_at) return api_error(401, "token_revoked");
    if (t->expires_at && t->expires_at < now) return api_error(401, "token_expired");
    s_.tokens.touch(*t, now);
    who->pubkey = t->owner;
    who->grant = grant_of(*t);
    who->token = t->hash;
  } else if (auth.starts_with("Nostr ")) {
    Nip98Request nip98{auth, req.method, req.target, req.body, minting};
    auto signer = verify_nip98(nip98, nip98_base_url(options_.relay_url), now);
    if (!signer) {
      if (minting && signer.error() == "NIP-98: payload tag required") {
        return api_error(401, "invalid_auth", "NIP-98 payload tag required for POST /api/tokens");
      }
      if (minting) return api_error(401, "invalid_auth", "NIP-98 verification failed");
      return api_error(401, signer.error());
    }
    nip98_event = *signer;
    who->pubkey = signer->pubkey;
    who->grant = Grant{};  // a signed request is a session: every scope, no channel list
    who->token.reset();
  } else {
    return api_error(401, "authentication failed");
  }
  if (s_.gatekeeper.banned(who->pubkey)) return api_error(403, "banned", "pubkey is banned");
  // Calls that change state are audited like a WebSocket AUTH (docs/reference/audit.md §5.2).
  const bool mutating = req.method != "GET" && req.method != "HEAD";
  const std::string_view method = who->token ? "token" : by_header ? "x-pubkey" : "nip98";
  if (mode != AuthMode::kNoMembershipGate && s_.membership.enforced() && !s_.membership.role(who->pubkey)) {
    // A NIP-98 request is a kind 27235; a bearer token has no event, so no kind condition holds for it.
    AttestedUse use{who->token ? std::nullopt : std::optional<uint32_t>(kind::kHttpAuth), now};
    Gatekeeper::HeaderVouch vouch = s_.gatekeeper.vouched_by_header(req, who->pubkey, use);
    if (vouch == Gatekeeper::HeaderVouch::kMultipleHeaders) {
      return api_error(400, "invalid_auth_tag", "multiple X-Auth-Tag headers not allowed");
    }
    if (vouch == Gatekeeper::HeaderVouch::kNot) {
      if (mutating && s_.throttle.audit_auth_failure(req.peer)) {
        s_.writer.submit_audit(auth_audit_record(who->pubkey, method, "not_relay_member"));
      }
      return api_error(403, "relay_membership_required", "You must be a relay member to access this relay");
    }
  }
  // Only past the gate and the API rate does a request's id take a place in the
  // bounded replay cache: a non-member cannot fill it, and a member only at its rate.
  if (auto refused = s_.throttle.admit_api_call(who->pubkey)) return refused;
  if (nip98_event) {
    Nip98ReplayCache::Use use = nip98_replays_.first_use(*nip98_event, now);
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
