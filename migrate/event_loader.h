// EventLoader: the importers' way into the store. Events arrive one by one,
// are checked in batches (id and Schnorr signature, on worker threads: the
// costly part of an import) and written through EventStore::write, the path
// ingest uses, so replaceable, addressable and deletion rules apply as they do
// live. Ephemeral kinds and kind 22242 are never stored, as on ingest.
//
// A pipeline, so no stage waits on another while there is work: the caller
// reads and parses, the workers check whole batches (any worker the next
// batch), and one writer thread writes the checked batches in order. At most a
// few batches are between the caller and the store; add() waits when the
// pipeline is full.
//
// A bad event stops the import: the events before it (in source order) are
// written, it and everything after are not, and finish() (or a later add())
// returns the error naming its source row. A rerun finds the written ones as
// duplicates, so nothing is lost and nothing doubles.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/result.h"
#include "migrate/progress.h"

namespace buzz::migrate {

class EventLoader {
 public:
  EventLoader(engine::EventStore& store, Progress& progress, size_t batch_rows, unsigned threads);
  ~EventLoader();
  EventLoader(const EventLoader&) = delete;
  EventLoader& operator=(const EventLoader&) = delete;

  // `label` names the source row in errors ("line 12", "table events, row id=…").
  // `deleted`: store it soft-deleted (as a superseded or NIP-09-deleted event
  // is kept). Callers give deleted events before live ones, so a deleted
  // version never stands in the way of the live one that replaced it.
  engine::Status add(engine::Event event, std::string channel, bool deleted, std::string label);
  // The same for a source that does not say which channel an event is in: it
  // is decided as ingest decides it, when the event is written (so every event
  // before it counts): its h tag when that is a canonical UUID; for reactions
  // and deletions, the channel of the event they point at; otherwise none.
  engine::Status add_deriving_channel(engine::Event event, std::string label);
  // Writes the rest; the first error of any stage.
  engine::Status finish();

  uint64_t stored() const { return stored_; }
  uint64_t not_stored() const { return not_stored_; }  // duplicates, stale versions, refused kinds
  uint64_t deleted() const { return deleted_; }

 private:
  struct Pending {
    engine::Event event;
    std::string channel;
    std::string label;
    bool deleted = false;
    bool derive_channel = false;
  };
  struct Batch {
    std::vector<Pending> events;
    size_t first_bad = SIZE_MAX;  // index of the first event that failed its check
    std::string failure;          // why it failed
    bool checked = false;
  };
  engine::Status push(Pending p);
  engine::Status submit();  // hands the gathered batch to the workers
  void check_loop();
  void write_loop();
  engine::Status write_batch(Batch& b);
  void report_progress();
  void stop();

  engine::EventStore& store_;
  Progress& progress_;
  const size_t batch_rows_;
  const size_t max_in_flight_;
  std::unique_ptr<Batch> gathering_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Batch>> in_flight_;  // oldest first: checked or not, not yet written
  size_t next_to_check_ = 0;                      // index in in_flight_ of the first batch no worker took
  bool closing_ = false;                          // no more batches will come
  bool stopping_ = false;                         // leave now (error or destruction)
  engine::Status error_;                          // the first failure of any stage
  std::vector<std::thread> workers_;
  std::thread writer_;
  std::atomic<uint64_t> handled_{0};  // events written or refused, for progress (the caller reports it)
  uint64_t reported_ = 0;
  uint64_t stored_ = 0, not_stored_ = 0, deleted_ = 0, refused_kinds_ = 0;
};

}  // namespace buzz::migrate
