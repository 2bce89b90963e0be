// AuditChain: where the audit feed hands its records (docs/reference/audit.md §5–§8): the
// segment files of AuditLog (audit_log.h) by default, or PostgreSQL's audit_log
// table shared by several nodes (migrate/pg_audit_chain.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/audit_entry.h"
#include "engine/result.h"

namespace buzz::engine {

struct AuditOptions {
  size_t queue_capacity = 65536;        // records queued and not yet written
  uint64_t segment_bytes = 64ull << 20;  // seal the active segment once it is this large
  // Called once every record up to and including `ticket` is durable (or was
  // refused by normalize_audit_record and never will be): on the writer thread,
  // or in replay_pending when nothing needed appending. Must not block for long
  // or call stop().
  std::function<void(uint64_t ticket)> on_durable;
};

struct AuditHead {
  uint64_t seq = 0;  // 0 for an empty chain
  std::string hash;  // genesis for an empty chain
};

struct AuditMetrics {
  std::atomic<uint64_t> entries_written{0};
  std::atomic<uint64_t> queue_depth{0};
  std::atomic<uint64_t> tail_truncated{0};    // torn tails cut off at open
  std::atomic<uint64_t> records_rejected{0};  // failed normalize_audit_record; never written
};

class AuditChain {
 public:
  // A caller-chosen increasing ticket with its record.
  using TicketedRecord = std::pair<uint64_t, AuditRecord>;

  virtual ~AuditChain() = default;

  // Any thread, never blocks on I/O. All or nothing: false, with `records`
  // left untouched, when the queue cannot take them all, after stop(), or once
  // the writer has failed.
  virtual bool try_append(std::vector<TicketedRecord>&& records) = 0;

  // Once, at start-up, before any try_append: records that were durable
  // elsewhere and may or may not have reached the chain before a crash. Skips
  // those the chain already holds, queues the rest (ignoring the capacity), and
  // reports the last ticket durable. If the chain cannot be read, the writer
  // fails closed instead.
  virtual void replay_pending(std::vector<TicketedRecord> pending) = 0;

  // The last durable entry.
  virtual AuditHead head() const = 0;
  // OK, or why the writer stopped appending.
  virtual Status status() const = 0;
  virtual const AuditMetrics& metrics() const = 0;

  // Writes everything already queued, then joins the writer. Idempotent.
  virtual void stop() = 0;
};

}  // namespace buzz::engine
