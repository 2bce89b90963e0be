// EventLoader: the importers' way into the store. Events arrive one by one,
// are checked in batches (id and Schnorr signature, on worker threads: the
// costly part of an import) and written through EventStore::write, the path
// ingest uses, so replaceable, addressable and deletion rules apply as they do
// live. Ephemeral kinds and kind 22242 are never stored, as on ingest.
//
// Pipelined: while the workers check batch N, the caller reads batch N+1; batch
// N is written (on the caller's thread, in order) before N+1 goes to the workers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"
#include "engine/event_store.h"
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
  // Writes the rest.
  engine::Status finish();

  uint64_t stored() const { return stored_; }
  uint64_t not_stored() const { return not_stored_; }  // duplicates, stale versions, refused kinds
  uint64_t deleted() const { return deleted_; }

 private:
  // Writes the batch the workers checked (if any), then hands them the current one.
  engine::Status flush();
  engine::Status write_checked();
  void work(unsigned index);

  struct Pending {
    engine::Event event;
    std::string channel;
    std::string label;
    bool deleted = false;
  };
  engine::EventStore& store_;
  Progress& progress_;
  const size_t batch_rows_;
  const unsigned threads_;
  std::vector<Pending> batch_;     // being gathered
  std::vector<Pending> checking_;  // with the workers
  std::vector<std::string> failures_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t generation_ = 0;  // one per batch handed out
  unsigned busy_ = 0;
  bool stopping_ = false;
  uint64_t stored_ = 0, not_stored_ = 0, deleted_ = 0;
};

// The channel an event belongs to, as ingest decides it: its h tag when that is
// a canonical UUID; for reactions and deletions, the channel of the event they
// point at when it is stored; otherwise none (global).
std::string channel_of(const engine::Event& e, engine::EventStore& store);

}  // namespace buzz::migrate
