// AuditLog: the single writer of the hash-chained audit log (docs/reference/audit.md §6, §8).
//
// open() locks <audit_dir>/LOCK, runs startup recovery (audit_recovery.h) and
// starts the writer thread (audit_writer.h), which owns the active segment: it
// assigns seq, timestamp, prev_hash and hash, appends each group with one write
// and one fdatasync, and only then advances head() and calls on_durable. It
// seals and rotates segments by size and on UTC date change.
//
// A failed write, fsync or rotation stops the writer for good (fail closed);
// the next open() repairs the torn tail and replay_pending re-submits the rest.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/audit_writer.h"
#include "engine/audit_entry.h"
#include "engine/audit_recovery.h"
#include "engine/result.h"

namespace buzz::engine {

class AuditLog final : public AuditWriter {
 public:
  // Creates the directory if needed. Fails if another process (or another
  // AuditLog) holds the LOCK, or if recovery finds damage it must not repair.
  static Result<std::unique_ptr<AuditLog>> open(const std::string& audit_dir, const AuditOptions& opts);
  ~AuditLog() override;

  const RecoveryReport& recovery() const { return recovery_; }

  // Once, at start-up, before any try_append: records that were durable
  // elsewhere and may or may not have reached the chain before a crash. Skips
  // the longest prefix of `pending` that equals the chain's last entries, queues
  // the rest (ignoring the capacity), and reports the last ticket durable. If the
  // chain cannot be read, the writer fails closed instead.
  void replay_pending(std::vector<TicketedRecord> pending) override;

 private:
  AuditLog(std::string dir, AuditOptions opts, int lock_fd, int segment_fd, RecoveredAudit recovered);
  Status write_group(std::vector<TicketedRecord>& group) override;
  Status seal_and_rotate(int64_t now_us);

  const std::string dir_;
  const int lock_fd_;
  const RecoveryReport recovery_;

  // Writer thread only.
  ActiveSegment active_;
  int segment_fd_ = -1;
  AuditHead written_;
};

}  // namespace buzz::engine
