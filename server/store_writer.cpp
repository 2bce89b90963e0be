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
    job.origin.loop = UINT16_MAX;  // nobody waits for an OK
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
  WriteBatchOutcome out;
  std::vector<engine::WriteRequest> requests;
  std::vector<std::shared_ptr<const engine::Event>> request_events;  // parallel to requests
  std::vector<std::string> request_channels;
  std::vector<int> job_request(jobs.size(), -1);  // which request answers each job
  request_events.reserve(jobs.size());
  request_channels.reserve(jobs.size());

  auto add_request = [&](std::shared_ptr<const engine::Event> e, std::string channel) {
    request_events.push_back(std::move(e));
    request_channels.push_back(std::move(channel));
    return int(request_events.size() - 1);
  };

  uint64_t now = engine::unix_now();
  for (size_t i = 0; i < jobs.size(); ++i) {
    WriteJob& job = jobs[i];
    if (job.type == WriteJob::Type::kMembership) {
      RelayMembership::Outcome m = membership_.apply(*job.event, now);
      out.replies.push_back({job.origin, job.event->id, m.ok, m.reason});
      for (auto& e : m.emitted) add_request(std::make_shared<const engine::Event>(std::move(e)), "");
      if (m.removed) out.lost_membership.push_back(*m.removed);
      continue;
    }
    job_request[i] = add_request(job.event, std::move(job.channel));
  }
  for (size_t r = 0; r < request_events.size(); ++r) {
    requests.push_back({request_events[r].get(), request_channels[r]});
  }

  auto results = store_.write(requests);
  if (!results) {
    log_error("store write failed", {{"error", results.error()}});
    for (size_t i = 0; i < jobs.size(); ++i) {
      if (job_request[i] >= 0) out.replies.push_back({jobs[i].origin, jobs[i].event->id, false, "error: internal server error"});
    }
    sink_(std::move(out));
    return;
  }
  // The batch is durable now: replies and fan-out may go.
  for (size_t r = 0; r < requests.size(); ++r) {
    if ((*results)[r].outcome == engine::WriteOutcome::kStored) {
      out.committed.push_back({request_events[r], request_channels[r],
                               std::make_shared<const std::string>(request_events[r]->raw)});
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (job_request[i] < 0 || jobs[i].origin.loop == UINT16_MAX) continue;
    const engine::WriteResult& res = (*results)[size_t(job_request[i])];
    switch (res.outcome) {
      case engine::WriteOutcome::kStored: out.replies.push_back({jobs[i].origin, jobs[i].event->id, true, ""}); break;
      case engine::WriteOutcome::kDuplicate:
      case engine::WriteOutcome::kStale:
        out.replies.push_back({jobs[i].origin, jobs[i].event->id, true, "duplicate:"});
        break;
      case engine::WriteOutcome::kInvalid:
        out.replies.push_back({jobs[i].origin, jobs[i].event->id, false, res.reason});
        break;
    }
  }
  sink_(std::move(out));
}

}  // namespace buzz::server
