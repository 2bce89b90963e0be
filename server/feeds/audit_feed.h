// AuditFeed: how the store writer's changes reach the audit log without ever
// losing an entry or stalling ingest (docs/reference/audit.md §5, docs/reference/protocol.md §8.4).
//
// A batch's records are written to the store's audit_pending table as one value
// in the same atomic batch as the events they describe, so they are exactly as
// durable as their OK (one value per batch: a key per record would cost more
// memtable inserts than the audit itself).
// After the batch commits it is queued to the AuditLog; once the chain holds it
// (fdatasync'ed), its pending copy is erased. At start-up the pending copies are
// replayed, and the log skips what its chain already has: a crash at any point
// loses nothing and duplicates nothing.
//
// If the log's queue is full, committed records wait here (they are durable in
// the store meanwhile) and the writer refuses new events with
// "error: audit backlog full, retry" until the log has taken them.
//
// Threads: everything but on_durable() runs on the store-writer thread;
// on_durable() runs on the audit log's writer thread.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/audit_chain.h"
#include "engine/event_store.h"

namespace buzz::server {

class AuditFeed {
 public:
  // `capacity` is the log's queue capacity: the backlog is handed over in pieces that fit.
  AuditFeed(engine::EventStore& store, engine::AuditChain& log, size_t capacity)
      : store_(store), log_(log), capacity_(capacity) {}

  // Start-up, before the first batch: hands the log what the store holds pending.
  engine::Status recover();

  // The refusal for new events while earlier records still wait for room, or "".
  std::string refusal();
  // Whether committed records still wait for room in the log.
  bool backlogged() const { return !backlog_.empty(); }
  // Entries committed but not yet in the chain: held here, or queued in the log.
  size_t queued() const { return backlog_.size() + size_t(log_.metrics().queue_depth.load(std::memory_order_relaxed)); }
  size_t capacity() const { return capacity_; }
  // Adds a record to the batch being built.
  void add(engine::AuditRecord record);
  // The pending copy of every record added to this batch, to commit with it.
  std::optional<engine::StateWrite> pending_write() const;
  // After the batch: queue what was added, or forget it if the batch failed.
  void commit(bool committed);

  // At shutdown, after the last batch: waits until the log has taken the
  // backlog (what it cannot take stays pending for the next start).
  void flush();

  // Between batches (StoreWriter::run_between_batches): waits until the chain
  // holds every record committed so far, so the chain and the store are at one
  // point; false if the log has failed.
  bool wait_durable();

  // The log's callback: every record up to `ticket` is in the chain.
  void on_durable(uint64_t ticket);

 private:
  // Hands the backlog to the log, oldest first, as far as it has room.
  void drain();

  engine::EventStore& store_;
  engine::AuditChain& log_;
  size_t capacity_;
  uint64_t next_ticket_ = 1;
  // on_durable's own: pending copies below this ticket are already erased.
  // Each erase covers only what the last one did not: overlapping range
  // deletes (all from 0) cost RocksDB memory quadratic in their number when
  // the family's memtable is flushed (gigabytes after some 50,000 events).
  uint64_t erased_below_ = 0;
  uint64_t committed_ = 0;             // the last ticket of a committed batch
  std::atomic<uint64_t> durable_{0};  // on_durable's last ticket, for wait_durable
  std::vector<engine::AuditChain::TicketedRecord> batch_;    // added, not yet committed
  std::deque<engine::AuditChain::TicketedRecord> backlog_;   // committed, not yet taken by the log
};

// The audit_pending key of a batch: its last ticket, big-endian, so keys sort by
// ticket and a batch is erased only once all of it is in the chain.
std::string audit_ticket_key(uint64_t ticket);

}  // namespace buzz::server
