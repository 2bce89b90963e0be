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
  if (deleted) deleted_.push_back(event.id);
  batch_.push_back({std::move(event), std::move(channel), std::move(label)});
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
  for (const Pending& p : batch_) requests.push_back({&p.event, p.channel});
  auto results = store_.write(requests);
  if (!results) return engine::Error{results.error()};
  for (const engine::WriteResult& r : *results) r.outcome == engine::WriteOutcome::kStored ? ++stored_ : ++not_stored_;
  progress_.advance(batch_.size());
  batch_.clear();
  return {};
}

engine::Status EventLoader::finish() {
  if (engine::Status s = flush(); !s) return s;
  return store_.soft_delete(deleted_);
}

}  // namespace buzz::migrate
