// AuditLog: the single writer of the hash-chained audit log (audit.md §6, §8).
//
// open() locks <audit_dir>/LOCK, runs startup recovery (audit_recovery.h) and
// starts one writer thread that owns the active segment. Producers on any
// thread hand it records through a bounded queue with try_append; the writer
// assigns seq, timestamp, prev_hash and hash, appends groups of up to 256 records
// (or what arrives within 10 ms) with one write and one fdatasync, and only then
// advances head() and calls on_durable. It seals and rotates segments by size
// and on UTC date change.
//
// A failed write, fsync or rotation stops the writer for good (fail closed):
// status() says why, try_append refuses, and nothing queued is reported durable.
// The next open() repairs the torn tail and replay_pending re-submits the rest.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/audit_chain.h"
#include "engine/audit_entry.h"
#include "engine/audit_recovery.h"
#include "engine/result.h"

namespace buzz::engine {

class AuditLog final : public AuditChain {
 public:
  // Creates the directory if needed. Fails if another process (or another
  // AuditLog) holds the LOCK, or if recovery finds damage it must not repair.
  static Result<std::unique_ptr<AuditLog>> open(const std::string& audit_dir, const AuditOptions& opts);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  const RecoveryReport& recovery() const { return recovery_; }

  // Any thread, never blocks on I/O. All or nothing: false, with `records`
  // left untouched, when the queue cannot take them all, after stop(), or once
  // the writer has failed.
  bool try_append(std::vector<TicketedRecord>&& records) override;

  // Once, at start-up, before any try_append: records that were durable
  // elsewhere and may or may not have reached the chain before a crash. Skips
  // the longest prefix of `pending` that equals the chain's last entries, queues
  // the rest (ignoring the capacity), and reports the last ticket durable. If the
  // chain cannot be read, the writer fails closed instead.
  void replay_pending(std::vector<TicketedRecord> pending) override;

  // The last durable entry.
  AuditHead head() const override;
  // OK, or why the writer stopped appending.
  Status status() const override;
  const AuditMetrics& metrics() const override { return metrics_; }

  // Writes everything already queued, then joins the writer. Idempotent.
  void stop() override;

 private:
  AuditLog(std::string dir, AuditOptions opts, int lock_fd, int segment_fd, RecoveredAudit recovered);
  void run_writer();
  bool take_group(std::vector<TicketedRecord>& group);
  Status write_group(std::vector<TicketedRecord>& group);
  Status seal_and_rotate(int64_t now_us);
  void fail(Status why);

  const std::string dir_;
  const AuditOptions opts_;
  const int lock_fd_;
  const RecoveryReport recovery_;
  AuditMetrics metrics_;

  // Writer thread only.
  ActiveSegment active_;
  int segment_fd_ = -1;
  AuditHead written_;

  mutable std::mutex mu_;  // guards the fields below
  std::condition_variable queue_cv_;
  std::deque<TicketedRecord> queue_;
  bool stopping_ = false;
  Status failure_;
  AuditHead durable_;

  std::thread writer_;
};

}  // namespace buzz::engine
