// PgAuditChain: the audit chain in PostgreSQL's audit_log table, one chain for
// every node on the database (audit.md §6). Each group of records is appended
// in one transaction under upstream's advisory lock (0x5370727574417564,
// "SprutAud", transaction-scoped): the head is read inside the lock, so no two
// writers, here or upstream's, share a prev_hash or reuse a seq. `buzz audit
// verify --store postgres://…` walks the same rows (pg_audit_rows.h).
//
// Like AuditLog: producers hand records through a bounded queue (try_append
// never blocks), one writer thread appends groups and reports their tickets
// durable after COMMIT. A lost connection is retried for a while (the records
// wait in the queue); then the writer fails closed as AuditLog does.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/audit_chain.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

class PgAuditChain final : public engine::AuditChain {
 public:
  static engine::Result<std::unique_ptr<PgAuditChain>> open(const std::string& url, const engine::AuditOptions& opts);
  ~PgAuditChain() override;

  bool try_append(std::vector<TicketedRecord>&& records) override;
  // Another node may have appended since: a pending record counts as in the
  // chain when an equal one is among the chain's newest entries (a few
  // thousand, far more than one node's pending records).
  void replay_pending(std::vector<TicketedRecord> pending) override;
  engine::AuditHead head() const override;
  engine::Status status() const override;
  const engine::AuditMetrics& metrics() const override { return metrics_; }
  void stop() override;

 private:
  PgAuditChain(std::string url, std::unique_ptr<PgConnection> pg, engine::AuditOptions opts, engine::AuditHead head);
  void run_writer();
  bool take_group(std::vector<TicketedRecord>& group);
  engine::Status write_group(std::vector<TicketedRecord>& group);
  void fail(engine::Status why);

  const std::string url_;
  std::unique_ptr<PgConnection> pg_;  // the writer thread's
  const engine::AuditOptions opts_;
  engine::AuditMetrics metrics_;

  mutable std::mutex mu_;  // guards the fields below
  std::condition_variable queue_cv_;
  std::deque<TicketedRecord> queue_;
  bool stopping_ = false;
  engine::Status failure_;
  engine::AuditHead durable_;

  std::thread writer_;
};

}  // namespace buzz::migrate
