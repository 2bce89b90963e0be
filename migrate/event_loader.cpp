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

engine::Status EventLoader::flush() {
  if (batch_.empty()) return {};
  // Verify on several threads; each checks every threads_-th event.
  std::vector<std::string> failures(batch_.size());
  auto check = [&](size_t first) {
    for (size_t i = first; i < batch_.size(); i += threads_) {
      std::string reason;
      if (engine::check_event(batch_[i].event, &reason) != engine::EventCheck::kOk) failures[i] = reason;
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads_; ++t) workers.emplace_back(check, t);
  check(0);
  for (std::thread& w : workers) w.join();
  for (size_t i = 0; i < batch_.size(); ++i) {
    if (!failures[i].empty()) return engine::Error{batch_[i].label + ": " + failures[i]};
  }
  std::vector<engine::WriteRequest> requests;
  requests.reserve(batch_.size());
  // A deleted event deletes itself as it is written, within the same batch.
  for (const Pending& p : batch_) {
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
    deleted_ += batch_[i].deleted;
  }
  progress_.advance(batch_.size());
  batch_.clear();
  return {};
}

engine::Status EventLoader::finish() { return flush(); }

}  // namespace buzz::migrate
