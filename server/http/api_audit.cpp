// The audit log over REST: its newest entries and a whole-chain check, for the
// relay's owner and admins; see audit_reads.h.
#include "server/http/audit_reads.h"

#include <charconv>

#include "engine/json_text.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/http/http_api.h"

namespace buzz::server {

std::string verify_report_json(const engine::VerifyReport& r) {
  // "ok" first, in the order `buzz audit verify` has always printed, for scripts that read it as text.
  if (!r.ok) {
    return JsonFields()
        .boolean("ok", false)
        .number("seq", r.failure.seq)
        .string("segment", r.failure.segment)
        .number("offset", r.failure.offset)
        .string("error", r.failure.error)
        .str();
  }
  return JsonFields()
      .boolean("ok", true)
      .number("entries", r.entries)
      .number("first_seq", r.first_seq)
      .number("last_seq", r.last_seq)
      .string("last_hash", r.last_hash)
      .str();
}

bool AuditReads::tail(size_t n, Answer answer) {
  return worker_.submit([this, n, answer = std::move(answer)] {
    auto entries = source_.tail(n);
    if (!entries) {
      log_error("audit tail unreadable", {{"error", entries.error()}});
      return answer(api_error(500, "audit log unreadable: " + entries.error()));
    }
    std::vector<std::string> rows;
    for (auto e = entries->rbegin(); e != entries->rend(); ++e) rows.push_back(engine::encode_audit_payload(*e));
    answer(net::HttpResponse::json(200, json_object({{"entries", json_array(rows)}})));
  });
}

bool AuditReads::verify(Answer answer) {
  return worker_.submit([this, answer = std::move(answer)] {
    engine::VerifyReport report = source_.verify();
    if (!report.ok) log_warn("audit chain failed verification", {{"where", engine::describe(report.failure)}});
    answer(net::HttpResponse::json(200, verify_report_json(report)));
  });
}

std::optional<net::HttpResponse> HttpApi::read_audit(const Caller& who, net::Loop& loop, net::Connection& conn,
                                                     const net::HttpRequest& req, bool verify) {
  const std::optional<engine::RelayRole> role = s_.membership.role(who.pubkey);
  if (!role || *role == engine::RelayRole::kMember) {
    return api_error(403, "forbidden", "only the relay owner and admins read the audit log");
  }
  if (!audit_) return api_error(404, "not found");
  bool queued;
  if (verify) {
    queued = audit_->verify(answer_later(loop, conn.id()));
  } else {
    size_t n = kAuditTailDefault;
    const std::string limit = req.query_param("limit");
    if (!limit.empty()) {
      auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), n);
      if (ec != std::errc() || end != limit.data() + limit.size() || n < 1 || n > kAuditTailMax) {
        return api_error(400, "limit: a whole number from 1 to " + std::to_string(kAuditTailMax));
      }
    }
    queued = audit_->tail(n, answer_later(loop, conn.id()));
  }
  if (!queued) return api_error(503, "audit reads busy, retry");
  return std::nullopt;
}

}  // namespace buzz::server
