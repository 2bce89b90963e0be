// SearchFeeder: how committed events reach the search index without blocking
// the pipeline and without being lost (docs/reference/protocol.md §8.4 step 3, Buzz decision).
//
// The relay offers each committed event (CommittedEvent) after its batch is
// durable, and reports deletions: remove() for every id a write deleted or
// superseded (WriteResult::removed, kind 5 / 9005 targets), remove_channel()
// when a channel is deleted. One worker thread applies them to the SearchIndex
// in order and commits at most once per commit_interval while changes arrive,
// so an event is searchable within about commit_interval of its offer (250 ms
// by default; a lone event right away).
//
// Back-pressure without loss: at most `capacity` events wait in the queue with
// their bytes. The store writer stops taking EVENTs while half of that waits
// (waiting(), as for its own queue), so under a sustained overload the ingest
// slows to the indexer's pace instead of outrunning it. When the queue is full
// all the same (the worker stalled past kStallAfter, in a long merge, say, and
// the writer stopped waiting for it), offer() keeps only the event's id in an
// unbounded backlog (32 bytes an event), and the worker re-reads the event
// through `lookup` (the store) when it gets to it: dearer than the event
// itself (a block read and its decompression), which is why the writer waits
// first. The lookup answers only live events, so a deletion reported meanwhile
// cannot be undone by a late re-read. Removals always queue (they are rare and
// small). The backlog's size and the age of the oldest change not yet
// searchable are the lag metrics.
//
// Only searchable kinds are taken (index/search_document.h lists them and why).
//
// Threads: offer, remove and remove_channel may be called from any thread and
// never block beyond a short lock; lookup runs on the worker. stop() drains the
// queue and the backlog, commits, and joins; changes offered after it are dropped.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine/event.h"
#include "engine/event_store.h"
#include "index/search_index.h"

namespace buzz::server {

// An event as the index needs it, re-read for the backlog.
struct IndexableEvent {
  engine::Event event;
  std::string channel;  // canonical channel id, empty for global events
};

// The live event with this id, or nullopt if it is unknown or deleted.
using EventLookup = std::function<std::optional<IndexableEvent>(const engine::Id&)>;
// The live edits (kind 40003) of the message with this id, newest first.
using EditsLookup = std::function<std::vector<IndexableEvent>(const engine::Id&)>;

struct SearchFeederOptions {
  size_t capacity = 8192;  // events queued with their bytes (about 0.7 s of a sustained ingest)
  std::chrono::milliseconds commit_interval{250};
};

struct SearchFeederMetrics {
  std::atomic<uint64_t> queued{0};      // events taken into the queue
  std::atomic<uint64_t> overflowed{0};  // events that found the queue full and went to the backlog
  std::atomic<uint64_t> indexed{0};     // documents added to the index
  std::atomic<uint64_t> removed{0};     // removals applied (ids and channels)
  std::atomic<uint64_t> vanished{0};    // backlog ids the lookup no longer found (deleted meanwhile)
  std::atomic<uint64_t> errors{0};      // index calls that failed; such an event waits for a rebuild
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> backlog{0};     // ids in the backlog now
  // steady_clock time (ns since its epoch) at which the oldest change not yet
  // searchable was offered; 0 when everything offered is searchable.
  std::atomic<int64_t> oldest_pending_ns{0};
};

class SearchFeeder {
 public:
  using Clock = std::chrono::steady_clock;

  // With `edits`, a message is found by the text of its newest edit only
  // (that edit's document; the message's own and older edits leave the
  // index), and a deleted message takes its edits out with it.
  SearchFeeder(index::SearchIndex& index, EventLookup lookup, SearchFeederOptions options = {}, EditsLookup edits = {});
  ~SearchFeeder();  // stop()
  SearchFeeder(const SearchFeeder&) = delete;
  SearchFeeder& operator=(const SearchFeeder&) = delete;

  // A committed event; ignored unless its kind is searchable. Never blocks.
  void offer(std::shared_ptr<const engine::Event> event, std::string channel);
  // A deleted or superseded event; also when its add is still waiting.
  void remove(const engine::Id& id);
  // A deleted channel: all its documents.
  void remove_channel(std::string channel);

  // Applies everything offered so far, commits, and ends the worker. Idempotent.
  void stop();

  // Any thread: events offered and not yet applied to the index (queued or in
  // the backlog), and how many may queue with their bytes.
  size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }
  size_t capacity() const { return options_.capacity; }
  // Any thread: changes wait and the worker has applied none for kStallAfter.
  // Whoever holds back for waiting() stops then: ingest must not stop behind
  // a stuck index (the backlog takes what comes meanwhile).
  bool stalled() const;
  static constexpr std::chrono::seconds kStallAfter{1};

  const SearchFeederMetrics& metrics() const { return metrics_; }
  // Seconds since the oldest change not yet searchable was offered; 0 when caught up.
  double lag_seconds() const;

 private:
  struct Change {
    enum class Type : uint8_t { kAdd, kRemove, kRemoveChannel };
    Type type;
    std::shared_ptr<const engine::Event> event;  // kAdd
    std::string channel;                         // kAdd, kRemoveChannel
    engine::Id id{};                             // kRemove
    Clock::time_point offered;
  };
  struct BacklogEntry {
    engine::Id id;
    Clock::time_point offered;
  };

  void run();
  void enqueue(Change change);
  void apply(const Change& change);
  void apply_backlog(const BacklogEntry& entry);
  // An offered add has been applied (or found vanished): one fewer waiting.
  void applied_one();
  bool commit();
  engine::Status add(const engine::Event& event, std::string_view channel);
  engine::Status remove_message(const engine::Id& id);
  // Caller holds mu_: whether a change just queued must wake the worker.
  bool wake_needed_locked() const;
  // Caller holds mu_: enough adds wait for a holding worker to apply them before the commit is due.
  bool enough_queued_locked() const;
  // Caller holds mu_: republishes metrics_.oldest_pending_ns.
  void publish_oldest_locked(std::optional<Clock::time_point> uncommitted);

  index::SearchIndex& index_;
  const EventLookup lookup_;
  const EditsLookup edits_;
  const SearchFeederOptions options_;
  SearchFeederMetrics metrics_;
  std::atomic<size_t> waiting_{0};
  std::atomic<int64_t> progress_ns_{0};  // steady_clock time the worker last took or applied changes

  std::mutex mu_;  // guards the fields below
  std::condition_variable wake_;
  std::deque<Change> queue_;
  size_t queued_adds_ = 0;  // kAdd entries in queue_ (the capacity counts only those)
  std::deque<BacklogEntry> backlog_;
  bool stopping_ = false;
  // The worker sleeps until the next commit is due: changes offered meanwhile
  // wait for it without waking the worker (one wake-up per interval, not per
  // event), unless an eighth of the queue waits: well before the half that
  // holds ingest back.
  bool holding_ = false;

  std::thread worker_;
};

// An EventLookup over the event store: parses the stored JSON of a live event.
EventLookup store_event_lookup(engine::EventStore& store);
EditsLookup store_edits_lookup(engine::EventStore& store);

}  // namespace buzz::server
