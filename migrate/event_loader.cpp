// The importers' write path; see event_loader.h.
#include "migrate/event_loader.h"

#include <unordered_map>

#include "engine/channel.h"
#include "engine/kinds.h"
#include "engine/signature.h"

namespace buzz::migrate {

EventLoader::EventLoader(engine::EventStore& store, Progress& progress, size_t batch_rows, unsigned threads)
    : store_(store),
      progress_(progress),
      batch_rows_(batch_rows ? batch_rows : 1),
      max_in_flight_((threads ? threads : 1) + 2),
      gathering_(std::make_unique<Batch>()) {
  for (unsigned t = 0; t < (threads ? threads : 1); ++t) workers_.emplace_back(&EventLoader::check_loop, this);
  writer_ = std::thread(&EventLoader::write_loop, this);
}

EventLoader::~EventLoader() { stop(); }

void EventLoader::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& w : workers_) {
    if (w.joinable()) w.join();
  }
  if (writer_.joinable()) writer_.join();
}

engine::Status EventLoader::add(engine::Event event, std::string channel, bool deleted, std::string label) {
  return push({std::move(event), std::move(channel), std::move(label), deleted, false});
}

engine::Status EventLoader::add_deriving_channel(engine::Event event, std::string label) {
  return push({std::move(event), {}, std::move(label), false, true});
}

engine::Status EventLoader::push(Pending p) {
  if (engine::kind_class(p.event.kind) == engine::KindClass::kEphemeral || p.event.kind == kind::kAuth) {
    ++refused_kinds_;
    progress_.advance(1);
    return {};
  }
  gathering_->events.push_back(std::move(p));
  if (gathering_->events.size() < batch_rows_) return {};
  return submit();
}

void EventLoader::report_progress() {
  const uint64_t handled = handled_.load(std::memory_order_relaxed);
  if (handled > reported_) progress_.advance(handled - reported_);
  reported_ = handled;
}

engine::Status EventLoader::submit() {
  report_progress();
  if (gathering_->events.empty()) return {};
  std::shared_ptr<Batch> batch(gathering_.release());
  gathering_ = std::make_unique<Batch>();
  gathering_->events.reserve(batch_rows_);
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stopping_ || in_flight_.size() < max_in_flight_; });
    if (stopping_) return error_ ? engine::Status(engine::Error{"the import stopped"}) : error_;
    in_flight_.push_back(std::move(batch));
  }
  cv_.notify_all();
  return {};
}

// Any worker takes the oldest batch no worker has taken, so the writer's next
// batch is always the first to be done. Each worker's cache of parsed public
// keys stays warm for the whole import (signature.h).
void EventLoader::check_loop() {
  for (;;) {
    std::shared_ptr<Batch> batch;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || closing_ || next_to_check_ < in_flight_.size(); });
      if (stopping_ || next_to_check_ >= in_flight_.size()) return;  // stopped, or closing with nothing left
      batch = in_flight_[next_to_check_++];
    }
    std::string reason;
    for (size_t i = 0; i < batch->events.size(); ++i) {
      if (engine::check_event(batch->events[i].event, &reason) != engine::EventCheck::kOk) {
        batch->first_bad = i;
        batch->failure = std::move(reason);
        break;
      }
    }
    {
      std::lock_guard lock(mu_);
      batch->checked = true;
    }
    cv_.notify_all();
  }
}

void EventLoader::write_loop() {
  for (;;) {
    std::shared_ptr<Batch> batch;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || (!in_flight_.empty() && in_flight_.front()->checked) || (closing_ && in_flight_.empty()); });
      if (stopping_ || in_flight_.empty()) return;
      batch = in_flight_.front();
    }
    engine::Status s = write_batch(*batch);
    {
      std::lock_guard lock(mu_);
      in_flight_.pop_front();
      --next_to_check_;
      if (!s) {
        error_ = s;
        stopping_ = true;
      }
    }
    cv_.notify_all();
    if (!s) return;
  }
}

// The checked events of a batch, up to its first bad one, in one write.
engine::Status EventLoader::write_batch(Batch& b) {
  const size_t n = std::min(b.first_bad, b.events.size());
  // Channels decided at write time see this batch's earlier events too.
  std::unordered_map<engine::Id, const std::string*, engine::KeyBytesHash> channels_here;
  std::vector<engine::WriteRequest> requests;
  requests.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Pending& p = b.events[i];
    if (p.derive_channel) {
      std::string_view h = p.event.first_tag_value("h");
      engine::Id target;
      if (engine::is_canonical_uuid(h)) {
        p.channel = h;
      } else if ((p.event.kind == kind::kDeletion || p.event.kind == kind::kReaction) &&
                 engine::from_hex(p.event.first_tag_value("e"), &target)) {
        if (auto it = channels_here.find(target); it != channels_here.end()) {
          p.channel = *it->second;
        } else if (auto stored = store_.lookup(target)) {
          p.channel = stored->channel;
        }
      }
      channels_here.emplace(p.event.id, &p.channel);
    }
    // A deleted event deletes itself as it is written, within the same batch.
    requests.push_back({&p.event, p.channel, p.deleted ? std::span<const engine::Id>(&p.event.id, 1) : std::span<const engine::Id>()});
  }
  if (n) {
    auto results = store_.write(requests);
    if (!results) return engine::Error{results.error()};
    for (size_t i = 0; i < results->size(); ++i) {
      if ((*results)[i].outcome != engine::WriteOutcome::kStored) {
        ++not_stored_;
        continue;
      }
      ++stored_;
      deleted_ += b.events[i].deleted;
    }
    handled_.fetch_add(n, std::memory_order_relaxed);
  }
  if (n < b.events.size()) return engine::Error{b.events[n].label + ": " + b.failure};
  return {};
}

engine::Status EventLoader::finish() {
  if (engine::Status s = submit(); !s) return s;
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (writer_.joinable()) writer_.join();
  stop();
  not_stored_ += refused_kinds_;
  refused_kinds_ = 0;
  report_progress();
  return error_;
}

}  // namespace buzz::migrate
