// The importers' write path; see event_loader.h.
#include "migrate/event_loader.h"

#include <thread>

#include "engine/channel.h"
#include "engine/kinds.h"
#include "engine/signature.h"

namespace buzz::migrate {

std::string channel_of(const engine::Event& e, engine::EventStore& store) {
  std::string_view h = e.first_tag_value("h");
  if (engine::is_canonical_uuid(h)) return std::string(h);
  if (e.kind == 5 || e.kind == 7) {
    engine::Id target;
    if (engine::from_hex(e.first_tag_value("e"), &target)) {
      if (auto stored = store.lookup(target)) return stored->channel;
    }
  }
  return {};
}

engine::Status EventLoader::add(engine::Event event, std::string channel, bool deleted, std::string label) {
  if (engine::kind_class(event.kind) == engine::KindClass::kEphemeral || event.kind == 22242) {
    ++not_stored_;
    progress_.advance(1);
    return {};
  }
  batch_.push_back({std::move(event), std::move(channel), std::move(label), deleted});
  return batch_.size() >= batch_rows_ ? flush() : engine::Status{};
}

EventLoader::EventLoader(engine::EventStore& store, Progress& progress, size_t batch_rows, unsigned threads)
    : store_(store), progress_(progress), batch_rows_(batch_rows), threads_(threads ? threads : 1) {
  for (unsigned t = 0; t < threads_; ++t) workers_.emplace_back(&EventLoader::work, this, t);
}

EventLoader::~EventLoader() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& w : workers_) w.join();
}

// Each worker checks every threads_-th event of a batch; it lives as long as
// the loader, so its cache of parsed public keys stays warm (signature.h).
void EventLoader::work(unsigned index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    for (size_t i = index; i < checking_.size(); i += threads_) {
      std::string reason;
      if (engine::check_event(checking_[i].event, &reason) != engine::EventCheck::kOk) failures_[i] = reason;
    }
    {
      std::lock_guard lock(mu_);
      --busy_;
    }
    cv_.notify_all();
  }
}

engine::Status EventLoader::write_checked() {
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return busy_ == 0; });
  }
  if (checking_.empty()) return {};
  for (size_t i = 0; i < checking_.size(); ++i) {
    if (!failures_[i].empty()) return engine::Error{checking_[i].label + ": " + failures_[i]};
  }
  // A deleted event deletes itself as it is written, within the same batch.
  std::vector<engine::WriteRequest> requests;
  requests.reserve(checking_.size());
  for (const Pending& p : checking_) {
    requests.push_back({&p.event, p.channel, p.deleted ? std::span<const engine::Id>(&p.event.id, 1) : std::span<const engine::Id>()});
  }
  auto results = store_.write(requests);
  if (!results) return engine::Error{results.error()};
  for (size_t i = 0; i < results->size(); ++i) {
    if ((*results)[i].outcome != engine::WriteOutcome::kStored) {
      ++not_stored_;
      continue;
    }
    ++stored_;
    deleted_ += checking_[i].deleted;
  }
  progress_.advance(checking_.size());
  checking_.clear();
  return {};
}

engine::Status EventLoader::flush() {
  if (engine::Status s = write_checked(); !s) return s;
  if (batch_.empty()) return {};
  checking_.swap(batch_);
  failures_.assign(checking_.size(), {});
  {
    std::lock_guard lock(mu_);
    ++generation_;
    busy_ = threads_;
  }
  cv_.notify_all();
  return {};
}

engine::Status EventLoader::finish() {
  if (engine::Status s = flush(); !s) return s;
  return write_checked();
}

}  // namespace buzz::migrate
