// The pipeline's side of full-text search; see search_feeder.h.
#include "server/feeds/search_feeder.h"

#include <algorithm>
#include <vector>

#include "engine/event_parse.h"
#include "engine/kind_numbers.h"
#include "engine/thread_role.h"
#include "index/search_document.h"
#include "server/common/log.h"

namespace buzz::server {
namespace {

// Backlog ids re-read per round, so a long backlog never delays queued changes for long.
constexpr size_t kBacklogBatch = 256;

int64_t to_ns(SearchFeeder::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

void earliest(std::optional<SearchFeeder::Clock::time_point>& into, SearchFeeder::Clock::time_point t) {
  if (!into || t < *into) into = t;
}

}  // namespace

SearchFeeder::SearchFeeder(index::SearchIndex& index, EventLookup lookup, SearchFeederOptions options, EditsLookup edits)
    : index_(index), lookup_(std::move(lookup)), edits_(std::move(edits)), options_(options), worker_([this] { run(); }) {}

SearchFeeder::~SearchFeeder() { stop(); }

void SearchFeeder::offer(std::shared_ptr<const engine::Event> event, std::string channel) {
  if (!event || !index::is_searchable_kind(event->kind)) return;
  Clock::time_point now = Clock::now();
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    // A stall is counted from the later of the last progress and this wait's start.
    if (waiting_.fetch_add(1, std::memory_order_relaxed) == 0) progress_ns_ = to_ns(now);
    if (queued_adds_ < options_.capacity) {
      queue_.push_back(Change{Change::Type::kAdd, std::move(event), std::move(channel), {}, now});
      ++queued_adds_;
      ++metrics_.queued;
    } else {
      // Full: keep the id only; the worker re-reads the event from the store.
      backlog_.push_back({event->id, now});
      metrics_.backlog = backlog_.size();
      ++metrics_.overflowed;
    }
    if (metrics_.oldest_pending_ns == 0) metrics_.oldest_pending_ns = to_ns(now);
    if (!wake_needed_locked()) return;
  }
  wake_.notify_one();
}

void SearchFeeder::remove(const engine::Id& id) { enqueue(Change{Change::Type::kRemove, nullptr, {}, id, Clock::now()}); }

void SearchFeeder::remove_channel(std::string channel) {
  enqueue(Change{Change::Type::kRemoveChannel, nullptr, std::move(channel), {}, Clock::now()});
}

// Removals bypass the capacity: dropping one would leave a deleted event searchable.
void SearchFeeder::enqueue(Change change) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    if (metrics_.oldest_pending_ns == 0) metrics_.oldest_pending_ns = to_ns(change.offered);
    queue_.push_back(std::move(change));
    if (!wake_needed_locked()) return;
  }
  wake_.notify_one();
}

bool SearchFeeder::wake_needed_locked() const { return !holding_ || enough_queued_locked(); }

// An eighth of the queue: well before the half at which the store writer holds ingest back.
bool SearchFeeder::enough_queued_locked() const { return queued_adds_ >= options_.capacity / 8; }

void SearchFeeder::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (worker_.joinable()) worker_.join();
}

bool SearchFeeder::stalled() const {
  return waiting() > 0 && to_ns(Clock::now()) - progress_ns_.load() > std::chrono::nanoseconds(kStallAfter).count();
}

double SearchFeeder::lag_seconds() const {
  int64_t oldest = metrics_.oldest_pending_ns.load();
  if (oldest == 0) return 0;
  return std::max<double>(0, double(to_ns(Clock::now()) - oldest) / 1e9);
}

void SearchFeeder::publish_oldest_locked(std::optional<Clock::time_point> uncommitted) {
  if (!queue_.empty()) earliest(uncommitted, queue_.front().offered);  // both are in offer order
  if (!backlog_.empty()) earliest(uncommitted, backlog_.front().offered);
  metrics_.oldest_pending_ns = uncommitted ? to_ns(*uncommitted) : 0;
}

void SearchFeeder::run() {
  engine::set_thread_role("buzz-search", engine::ThreadRole::kForeground);
  std::optional<Clock::time_point> uncommitted;  // when the oldest applied, uncommitted change was offered
  Clock::time_point last_commit{};                // long ago: a lone change commits at once
  std::vector<Change> changes;
  std::vector<BacklogEntry> re_reads;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      publish_oldest_locked(uncommitted);
      auto has_work = [this] { return !queue_.empty() || !backlog_.empty() || stopping_; };
      if (uncommitted) {
        holding_ = true;
        wake_.wait_until(lock, last_commit + options_.commit_interval, [this] {
          return stopping_ || enough_queued_locked() || !backlog_.empty();
        });
        holding_ = false;
      } else {
        wake_.wait(lock, has_work);
      }
      if (stopping_ && queue_.empty() && backlog_.empty()) break;
      std::move(queue_.begin(), queue_.end(), std::back_inserter(changes));
      queue_.clear();
      queued_adds_ = 0;
      size_t take = std::min(backlog_.size(), kBacklogBatch);
      re_reads.assign(backlog_.begin(), backlog_.begin() + ptrdiff_t(take));
      backlog_.erase(backlog_.begin(), backlog_.begin() + ptrdiff_t(take));
      metrics_.backlog = backlog_.size();
    }
    // Queued changes apply in offer order, so a remove() after its event's add wins.
    for (const Change& change : changes) {
      apply(change);
      earliest(uncommitted, change.offered);
      if (change.type == Change::Type::kAdd) applied_one();
    }
    for (const BacklogEntry& entry : re_reads) {
      apply_backlog(entry);
      earliest(uncommitted, entry.offered);
      applied_one();
    }
    changes.clear();
    re_reads.clear();
    // At most one commit per interval: each opens a new snapshot of the index.
    Clock::time_point now = Clock::now();
    if (uncommitted && now - last_commit >= options_.commit_interval) {
      if (commit()) uncommitted.reset();  // a failed commit is retried next interval
      last_commit = now;
      progress_ns_ = to_ns(Clock::now());
    }
  }
  if (uncommitted && commit()) uncommitted.reset();
  std::lock_guard lock(mu_);
  publish_oldest_locked(uncommitted);
}

void SearchFeeder::applied_one() {
  waiting_.fetch_sub(1, std::memory_order_relaxed);
  progress_ns_.store(to_ns(Clock::now()), std::memory_order_relaxed);
}

void SearchFeeder::apply(const Change& change) {
  engine::Status status;
  switch (change.type) {
    case Change::Type::kAdd:
      status = add(*change.event, change.channel);
      if (status) ++metrics_.indexed;
      break;
    case Change::Type::kRemove:
      status = remove_message(change.id);
      if (status) ++metrics_.removed;
      break;
    case Change::Type::kRemoveChannel:
      status = index_.remove_channel(change.channel);
      if (status) ++metrics_.removed;
      break;
  }
  if (!status) {
    ++metrics_.errors;
    log_error("search index update failed", {{"reason", status.error()}});
  }
}

void SearchFeeder::apply_backlog(const BacklogEntry& entry) {
  std::optional<IndexableEvent> found = lookup_(entry.id);
  if (!found) {
    ++metrics_.vanished;
    return;
  }
  engine::Status status = add(found->event, found->channel);
  if (status) {
    ++metrics_.indexed;
  } else {
    ++metrics_.errors;
    log_error("search index update failed", {{"reason", status.error()}});
  }
}

// An edit stands for its message: only the newest edit of a live message
// stays indexed (the store answers newest first, this one included).
engine::Status SearchFeeder::add(const engine::Event& event, std::string_view channel) {
  engine::Id message;
  if (event.kind != kind::kMessageEdit || !edits_ || !engine::from_hex(event.first_tag_value("e"), &message)) {
    return index_.add(event, channel);
  }
  std::vector<IndexableEvent> edits = edits_(message);
  if (edits.empty()) return index_.add(event, channel);
  const bool live = lookup_(message).has_value();
  engine::Status status = index_.remove(message);
  for (size_t i = 0; status && i < edits.size(); ++i) {
    status = i == 0 && live ? index_.add(edits[0].event, edits[0].channel) : index_.remove(edits[i].event.id);
  }
  return status;
}

engine::Status SearchFeeder::remove_message(const engine::Id& id) {
  engine::Status status = index_.remove(id);
  if (!edits_) return status;
  for (const IndexableEvent& edit : edits_(id)) {
    if (status) status = index_.remove(edit.event.id);
  }
  return status;
}

bool SearchFeeder::commit() {
  engine::Status status = index_.commit();
  if (status) {
    ++metrics_.commits;
    return true;
  }
  ++metrics_.errors;
  log_error("search index commit failed", {{"reason", status.error()}});
  return false;
}

EventLookup store_event_lookup(engine::EventStore& store) {
  return [&store](const engine::Id& id) -> std::optional<IndexableEvent> {
    std::optional<engine::StoredEvent> stored = store.lookup(id);
    if (!stored || stored->deleted) return std::nullopt;
    engine::Result<engine::Event> event = engine::parse_event_json(stored->raw);
    if (!event) {
      log_error("stored event does not parse", {{"id", engine::to_hex(id)}, {"reason", event.error()}});
      return std::nullopt;
    }
    return IndexableEvent{std::move(*event), std::move(stored->channel)};
  };
}

EditsLookup store_edits_lookup(engine::EventStore& store) {
  return [&store](const engine::Id& message) {
    engine::Filter f;
    f.kinds = std::vector<uint16_t>{kind::kMessageEdit};
    f.tags.push_back({'e', {engine::to_hex(message)}});
    f.normalize();
    std::vector<IndexableEvent> edits;
    (void)store.query(f, {}, [&](std::string_view raw, const engine::EventFields& fields) {
      if (engine::Result<engine::Event> e = engine::parse_event_json(raw)) {
        edits.push_back({std::move(*e), std::string(fields.channel)});
      }
    });
    return edits;
  };
}

}  // namespace buzz::server
