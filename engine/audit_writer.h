// AuditWriter: what every AuditChain shares (docs/reference/audit.md §8.4). Producers on any
// thread hand records through a bounded queue with try_append, which never
// blocks; one writer thread takes groups of up to 256 records (or what arrives
// within 10 ms) and hands each to the chain's write_group, which makes them
// durable and then moves the head and calls on_durable.
//
// A group that fails stops the writer for good (fail closed): status() says
// why, try_append refuses, and nothing queued is reported durable. AuditLog
// (segment files) and migrate's PgAuditChain (PostgreSQL) are the chains.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/audit_chain.h"

namespace buzz::engine {

class AuditWriter : public AuditChain {
 public:
  ~AuditWriter() override;
  AuditWriter(const AuditWriter&) = delete;
  AuditWriter& operator=(const AuditWriter&) = delete;

  bool try_append(std::vector<TicketedRecord>&& records) final;
  AuditHead head() const final;
  Status status() const final;
  const AuditMetrics& metrics() const final { return metrics_; }
  // Writes everything already queued, then joins the writer. Idempotent. A
  // chain's destructor calls it first, before its own members go.
  void stop() final;

 protected:
  AuditWriter(AuditOptions opts, AuditHead durable);
  // Starts the writer thread: the last step of a chain's constructor.
  void start();
  // On the writer thread: appends `group` durably (calling set_durable and
  // on_durable after), or says why it could not.
  virtual Status write_group(std::vector<TicketedRecord>& group) = 0;
  void set_durable(AuditHead head);
  // For replay_pending: records queued after all, ignoring the capacity.
  void requeue(std::vector<TicketedRecord> records);
  void fail(Status why);

  const AuditOptions opts_;
  AuditMetrics metrics_;

 private:
  void run_writer();
  bool take_group(std::vector<TicketedRecord>& group);

  mutable std::mutex mu_;  // guards the fields below
  std::condition_variable queue_cv_;
  std::deque<TicketedRecord> queue_;
  bool stopping_ = false;
  Status failure_;
  AuditHead durable_;

  std::thread writer_;
};

}  // namespace buzz::engine
