// The store-writer thread; see store_writer.h.
#include "server/store_writer.h"

#include "engine/clock.h"

#include "server/log.h"

namespace buzz::server {
StoreWriter::StoreWriter(engine::EventStore& store, RelayMembership& membership, size_t capacity, Sink sink)
    : store_(store), membership_(membership), capacity_(capacity), sink_(std::move(sink)) {
  thread_ = std::thread([this] { run(); });
}

StoreWriter::~StoreWriter() { stop(); }

void StoreWriter::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

size_t StoreWriter::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

bool StoreWriter::submit(WriteJob&& job) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= capacity_ || stopping_) return false;
    queue_.push_back(std::move(job));
    if (queue_.size() > 1) return true;  // the writer is already awake for this batch
  }
  cv_.notify_one();
  return true;
}

void StoreWriter::submit_relay_events(std::vector<engine::Event> events) {
  std::lock_guard lock(mu_);
  for (auto& e : events) {
    WriteJob job;
    job.event = std::make_shared<const engine::Event>(std::move(e));
    job.origin.loop = kNoReply;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void StoreWriter::run() {
  std::vector<WriteJob> jobs;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() && stopping_) return;
      jobs.swap(queue_);
    }
    process(jobs);
    jobs.clear();
  }
}

void StoreWriter::process(std::vector<WriteJob>& jobs) {
  // One entry per event to store: the client's own, and the relay-signed
  // events a membership change emits (those have no job waiting for an OK).
  struct Pending {
    std::shared_ptr<const engine::Event> event;
    std::string channel;
    const WriteJob* job;
  };
  WriteBatchOutcome out;
  std::vector<Pending> pending;
  pending.reserve(jobs.size());
  uint64_t now = engine::unix_now();
  for (WriteJob& job : jobs) {
    if (job.type == WriteJob::Type::kMembership) {
      RelayMembership::Outcome m = membership_.apply(*job.event, now);
      out.replies.push_back({job.origin, job.event->id, m.ok, m.reason});
      for (auto& e : m.emitted) pending.push_back({std::make_shared<const engine::Event>(std::move(e)), "", nullptr});
      if (m.removed) out.lost_membership.push_back(*m.removed);
      continue;
    }
    bool wants_ok = job.origin.loop != kNoReply;
    pending.push_back({job.event, std::move(job.channel), wants_ok ? &job : nullptr});
  }
  std::vector<engine::WriteRequest> requests;
  requests.reserve(pending.size());
  for (const Pending& p : pending) requests.push_back({p.event.get(), p.channel});

  auto results = store_.write(requests);
  if (!results) log_error("store write failed", {{"error", results.error()}});
  // The batch is durable now (or failed as a whole): replies and fan-out may go.
  for (size_t r = 0; r < pending.size(); ++r) {
    const Pending& p = pending[r];
    if (!results) {
      if (p.job) out.replies.push_back({p.job->origin, p.event->id, false, "error: internal server error"});
      continue;
    }
    const engine::WriteResult& res = (*results)[r];
    if (res.outcome == engine::WriteOutcome::kStored) {
      out.committed.push_back({p.event, p.channel, std::make_shared<const std::string>(p.event->raw)});
    }
    if (!p.job) continue;
    switch (res.outcome) {
      case engine::WriteOutcome::kStored: out.replies.push_back({p.job->origin, p.event->id, true, ""}); break;
      case engine::WriteOutcome::kDuplicate:
      case engine::WriteOutcome::kStale: out.replies.push_back({p.job->origin, p.event->id, true, "duplicate:"}); break;
      case engine::WriteOutcome::kInvalid: out.replies.push_back({p.job->origin, p.event->id, false, res.reason}); break;
    }
  }
  sink_(std::move(out));
}

}  // namespace buzz::server
