// PgAuditChain: the audit chain in PostgreSQL's audit_log table, one chain for
// every node on the database (docs/reference/audit.md §6). Each group of records is appended
// in one transaction under upstream's advisory lock (0x5370727574417564,
// "SprutAud", transaction-scoped): the head is read inside the lock, so no two
// writers, here or upstream's, share a prev_hash or reuse a seq. `buzz audit
// verify --store postgres://…` walks the same rows (pg_audit_rows.h).
//
// Like AuditLog, an AuditWriter (engine/audit_writer.h): a bounded queue, one
// writer thread that appends groups and reports their tickets durable after
// COMMIT. A lost connection is retried for a while (the records wait in the
// queue); then the writer fails closed as AuditLog does.
#pragma once

#include <memory>
#include <string>

#include "engine/audit_writer.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

class PgAuditChain final : public engine::AuditWriter {
 public:
  static engine::Result<std::unique_ptr<PgAuditChain>> open(const std::string& url, const engine::AuditOptions& opts);
  ~PgAuditChain() override;

  // Another node may have appended since: a pending record counts as in the
  // chain when an equal one is among the chain's newest entries (a few
  // thousand, far more than one node's pending records).
  void replay_pending(std::vector<TicketedRecord> pending) override;

 private:
  PgAuditChain(std::string url, std::unique_ptr<PgConnection> pg, engine::AuditOptions opts, engine::AuditHead head);
  // A lost connection is retried for a while, the group kept whole.
  engine::Status write_group(std::vector<TicketedRecord>& group) override;
  engine::Status append_group(std::vector<TicketedRecord>& group);

  const std::string url_;
  std::unique_ptr<PgConnection> pg_;  // the writer thread's
};

}  // namespace buzz::migrate
