// The audit chain read over REST for the relay's owner and admins (GET
// /api/audit, GET /api/audit/verify; docs/access.md). The chain lives in
// engine's segment files or in migrate's PostgreSQL table, which this room may
// not include, so the wiring (server/app/serve.cpp) hands in how to read it.
//
// A verify walks the whole chain, seconds on a large one, so neither call runs
// on a loop: AuditReads has a worker of its own (buzz-audit-read) with a short queue;
// a full queue refuses (503) rather than waits. The worker answers through the
// callback it is given, from its own thread.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "engine/audit_verify.h"
#include "net/http.h"
#include "server/common/bounded_worker.h"

namespace buzz::server {

struct AuditSource {
  // The last n entries, oldest first.
  std::function<engine::Result<std::vector<engine::AuditEntry>>(size_t n)> tail;
  // The whole chain checked (docs/reference/audit.md §7).
  std::function<engine::VerifyReport()> verify;
};

// `buzz audit verify`'s one line, which GET /api/audit/verify answers too:
// {"ok":true,"entries","first_seq","last_seq","last_hash"} or
// {"ok":false,"seq","segment","offset","error"}.
std::string verify_report_json(const engine::VerifyReport& report);

class AuditReads {
 public:
  using Answer = std::function<void(net::HttpResponse)>;
  static constexpr size_t kMaxQueued = 4;

  explicit AuditReads(AuditSource source) : source_(std::move(source)) { worker_.start(); }
  // Ends the worker once the read in hand is answered; reads still queued get no answer. Idempotent.
  void stop() { worker_.stop(); }

  // Any thread. false: the queue is full, nothing will be answered.
  bool tail(size_t n, Answer answer);
  bool verify(Answer answer);

 private:
  const AuditSource source_;
  BoundedWorker worker_{"buzz-audit-read", kMaxQueued};
};

}  // namespace buzz::server
