// AUTH (NIP-42, protocol.md §6.2): the challenge-response that every client
// must pass before EVENT, REQ or COUNT. Every failure is final for the connection.
// Each attempt is audited (auth_success / auth_failure, audit.md §5.2) through
// the store writer, which makes the entry durable like any other.
#include <cstdlib>

#include "engine/clock.h"
#include "engine/signature.h"
#include "server/json_text.h"
#include "server/log.h"
#include "server/relay.h"
#include "server/relay_url.h"

namespace buzz::server {

bool Relay::audit_auth(const engine::Pubkey& actor, std::string_view method, std::string_view reason) {
  std::vector<std::pair<std::string, std::string>> meta = {{"method", json_string(method)}};
  if (!reason.empty()) meta.emplace_back("reason", json_string(reason));
  // 48001 is the sentinel kind of entries without an event: never the AUTH's own 22242.
  return submit_audit({"", engine::kKindAuditEntry, engine::to_hex(actor),
                       std::string(reason.empty() ? engine::kActionAuthSuccess : engine::kActionAuthFailure), "",
                       json_object(std::move(meta))});
}

bool Relay::submit_audit(engine::AuditRecord record) {
  WriteJob job;
  job.type = WriteJob::Type::kAudit;
  job.origin.loop = kNoReply;
  job.audit = std::move(record);
  return writer_->submit(std::move(job));
}

void Relay::handle_auth(Context& c, const engine::Event& e) {
  Session& s = c.session;
  // AUTH answers are counted as authentications, not as events.
  auto reply = [&](bool accepted, std::string_view reason) {
    c.loop.send_text(c.conn, ok_frame(e.id_hex(), accepted, reason));
    (accepted ? stats_.auth_successes : stats_.auth_failures).fetch_add(1, std::memory_order_relaxed);
  };
  if (s.auth == Session::Auth::kAuthenticated) return reply(false, "auth-required: already authenticated");
  if (s.auth == Session::Auth::kFailed) return reply(false, "auth-required: authentication already failed");

  auto verified = [&] {
    if (e.kind != 22242) return false;
    std::string reason;
    if (engine::check_event(e, &reason) != engine::EventCheck::kOk) return false;
    if (e.first_tag_value("challenge") != s.challenge_hex()) return false;
    if (normalize_relay_url(e.first_tag_value("relay")) != relay_url_normalized_) return false;
    return std::llabs(engine::seconds_from(engine::unix_now(), e.created_at)) <= 60;
  };
  std::string_view method = e.first_tag("auth_token") ? "token" : "nip42";
  auto fail = [&](std::string_view audit_reason, std::string_view wire_reason) {
    s.auth = Session::Auth::kFailed;
    if (!audit_auth(e.pubkey, method, audit_reason)) log_warn("auth failure not audited: writer queue full");
    reply(false, wire_reason);
  };
  if (!verified()) return fail("verification_failed", "auth-required: verification failed");
  // An API token in the AUTH narrows the session to the token's grant (protocol.md §6.5).
  std::optional<Grant> grant;
  if (const engine::Tag* tag = e.first_tag("auth_token")) {
    std::string_view token = (*tag)[1];
    if (!token.starts_with(engine::kTokenPrefix)) return fail("verification_failed", "auth-required: verification failed");
    auto t = tokens_.find(engine::hash_token(token));
    if (!t || t->revoked_at) return fail("invalid_token", "auth-required: invalid token");
    if (!t->active(engine::unix_now()) || t->owner != e.pubkey) {
      return fail("verification_failed", "auth-required: verification failed");
    }
    tokens_.touch(t->hash, engine::unix_now());
    grant = grant_of(*t);
  }
  // The legacy allow-list gates key-only AUTH; an API token bypasses it (protocol.md §6.5).
  if (!grant && !allowlisted(e.pubkey)) return fail("not_allowlisted", "auth-required: verification failed");
  if (membership_.enforced() && !membership_.role(e.pubkey) &&
      !vouched_by_owner(attestation_of(e), e.pubkey, {e.kind, e.created_at})) {
    return fail("not_relay_member", "restricted: not a relay member");
  }
  // No session starts unaudited: a full writer queue refuses the attempt (the client may retry).
  if (!audit_auth(e.pubkey, method, "")) return reply(false, "error: audit backlog full, retry");
  if (auto ensured = profiles_.ensure(e.pubkey); !ensured) log_warn("user record not written", {{"error", ensured.error()}});
  s.auth = Session::Auth::kAuthenticated;
  s.pubkey = e.pubkey;
  if (grant) s.grant = std::move(*grant);
  reply(true, "");
}

bool Relay::vouched_by_owner(const std::optional<OwnerAttestation>& a, const engine::Pubkey& agent,
                             const AttestedUse& use) {
  if (!config_.allow_nip_oa_auth || !a || !membership_.role(a->owner) || !attestation_valid(*a, agent, use)) return false;
  // First write wins: an agent already owned by someone else keeps that owner.
  if (auto claimed = profiles_.claim_owner(agent, a->owner); !claimed) {
    log_warn("NIP-OA owner link not recorded", {{"error", claimed.error()}});
  }
  return true;
}

Relay::HeaderVouch Relay::vouched_by_header(const net::HttpRequest& req, const engine::Pubkey& agent,
                                            const AttestedUse& use) {
  std::optional<std::string_view> header;
  for (const auto& [name, value] : req.headers) {
    if (name != "x-auth-tag") continue;
    if (header) return HeaderVouch::kMultipleHeaders;
    header = value;
  }
  if (!header) return HeaderVouch::kNot;
  auto parsed = parse_attestation_json(*header);
  std::optional<OwnerAttestation> a;
  if (parsed) a = std::move(*parsed);
  return vouched_by_owner(a, agent, use) ? HeaderVouch::kVouched : HeaderVouch::kNot;
}

}  // namespace buzz::server
