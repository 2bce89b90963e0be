// AUTH (NIP-42, protocol.md §6.2): the challenge-response that every client
// must pass before EVENT, REQ or COUNT. Every failure is final for the connection.
// Each attempt is audited (auth_success / auth_failure, audit.md §5.2) through
// the store writer, which makes the entry durable like any other.
#include <cstdlib>

#include "engine/clock.h"
#include "engine/signature.h"
#include "server/relay.h"
#include "server/log.h"
#include "server/relay_url.h"

namespace buzz::server {
namespace {

WriteJob auth_audit_job(const engine::Event& e, std::string_view reason) {
  std::string meta = reason.empty() ? R"({"method":"nip42"})" : R"({"method":"nip42","reason":")" + std::string(reason) + "\"}";
  WriteJob job;
  job.type = WriteJob::Type::kAudit;
  job.origin.loop = kNoReply;
  // 48001 is the sentinel kind of entries without an event: never the AUTH's own 22242.
  job.audit = engine::AuditRecord{"", engine::kKindAuditEntry, e.pubkey_hex(),
                                  std::string(reason.empty() ? engine::kActionAuthSuccess : engine::kActionAuthFailure),
                                  "", std::move(meta)};
  return job;
}

}  // namespace

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
  if (!verified()) {
    s.auth = Session::Auth::kFailed;
    if (!writer_->submit(auth_audit_job(e, "verification_failed"))) log_warn("auth failure not audited: writer queue full");
    return reply(false, "auth-required: verification failed");
  }
  if (membership_.enforced() && !membership_.role(e.pubkey)) {
    s.auth = Session::Auth::kFailed;
    if (!writer_->submit(auth_audit_job(e, "not_relay_member"))) log_warn("auth failure not audited: writer queue full");
    return reply(false, "restricted: not a relay member");
  }
  // No session starts unaudited: a full writer queue refuses the attempt (the client may retry).
  if (!writer_->submit(auth_audit_job(e, ""))) return reply(false, "error: audit backlog full, retry");
  s.auth = Session::Auth::kAuthenticated;
  s.pubkey = e.pubkey;
  reply(true, "");
}

}  // namespace buzz::server
