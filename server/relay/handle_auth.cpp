// AUTH (NIP-42, docs/reference/protocol.md §6.2): the challenge-response that every client
// must pass before EVENT, REQ or COUNT. Every failure is final for the connection.
// Each attempt is audited (auth_success / auth_failure, docs/reference/audit.md §5.2) through
// the store writer, which makes the entry durable like any other.
#include "engine/clock.h"
#include "server/access/auth_audit.h"
#include "server/access/nip42.h"
#include "server/common/log.h"
#include "server/relay/relay.h"

namespace buzz::server {

void Relay::handle_auth(Context& c, const engine::Event& e) {
  Session& s = c.session;
  // AUTH answers are counted as authentications, not as events.
  auto reply = [&](bool accepted, std::string_view reason) {
    c.loop.send_text(c.conn, ok_frame(e.id_hex(), accepted, reason));
    (accepted ? s_.stats.auth_successes : s_.stats.auth_failures).fetch_add(1, std::memory_order_relaxed);
  };
  if (s.auth == Session::Auth::kAuthenticated) return reply(false, "auth-required: already authenticated");
  if (s.auth == Session::Auth::kFailed) return reply(false, "auth-required: authentication already failed");

  std::string_view method = e.first_tag("auth_token") ? "token" : "nip42";
  // Until the event verifies, its pubkey is only claimed: the entry names no
  // actor (docs/audit.md). Failures are audited up to a bound per address.
  auto fail = [&](std::string_view audit_reason, std::string_view wire_reason, bool proven = true) {
    s.auth = Session::Auth::kFailed;
    if (s_.throttle.audit_auth_failure(c.conn.peer())) {
      engine::AuditRecord entry = proven ? auth_audit_record(e.pubkey, method, audit_reason)
                                         : unproven_auth_failure_record(e.pubkey, method, audit_reason);
      if (!s_.writer.submit_audit(std::move(entry))) log_warn("auth failure not audited: writer queue full");
    }
    reply(false, wire_reason);
  };
  if (!nip42_auth_valid(e, s.challenge_hex(), relay_url_normalized_)) {
    return fail("verification_failed", "auth-required: verification failed", /*proven=*/false);
  }
  // An API token in the AUTH narrows the session to the token's grant (docs/reference/protocol.md §6.5).
  std::optional<Grant> grant;
  if (const engine::Tag* tag = e.first_tag("auth_token")) {
    std::string_view token = (*tag)[1];
    if (!token.starts_with(engine::kTokenPrefix)) return fail("verification_failed", "auth-required: verification failed");
    auto found = s_.tokens.find(engine::hash_token(token));
    if (!found) return reply(false, found.error());  // the store failed, not the client: it may try again
    const std::optional<engine::ApiToken>& t = *found;
    if (!t || t->revoked_at) return fail("invalid_token", "auth-required: invalid token");
    if (!t->active(engine::unix_now()) || t->owner != e.pubkey) {
      return fail("verification_failed", "auth-required: verification failed");
    }
    s_.tokens.touch(*t, engine::unix_now());
    grant = grant_of(*t);
  }
  // The legacy allow-list gates key-only AUTH; an API token bypasses it (docs/reference/protocol.md §6.5).
  if (!grant && !s_.gatekeeper.allowlisted(e.pubkey)) return fail("not_allowlisted", "auth-required: verification failed");
  if (s_.gatekeeper.banned(e.pubkey)) return fail("banned", "restricted: pubkey is banned");
  if (!s_.gatekeeper.admits_auth(e)) return fail("not_relay_member", "restricted: not a relay member");
  // One pubkey's sessions are capped (docs/limits.md, "Connections"): past it the
  // connection goes, so a member cannot multiply what one connection may queue.
  if (!claim_session(e.pubkey)) {
    s_.stats.pubkey_session_caps.fetch_add(1, std::memory_order_relaxed);
    s.auth = Session::Auth::kFailed;
    const std::string why = "restricted: too many connections for this pubkey (max " +
                            std::to_string(session_limits_.max_per_pubkey) + ")";
    reply(false, why);
    return c.loop.close(c.conn, 1008, why);
  }
  // No session starts unaudited: a full writer queue refuses the attempt (the client may retry).
  if (!s_.writer.submit_audit(auth_audit_record(e.pubkey, method, ""))) {
    release_session(e.pubkey);
    return reply(false, "error: audit backlog full, retry");
  }
  if (auto ensured = s_.profiles.ensure(e.pubkey); !ensured) log_warn("user record not written", {{"error", ensured.error()}});
  s.auth = Session::Auth::kAuthenticated;
  s.pubkey = e.pubkey;
  if (grant) {
    s.grant = std::move(*grant);
    s.token = engine::hash_token(e.first_tag("auth_token")->at(1));
  }
  reply(true, "");
}

}  // namespace buzz::server
