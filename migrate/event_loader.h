// EventLoader: the importers' way into the store. Events arrive one by one,
// are checked in batches (id and Schnorr signature, on several threads: the
// costly part of an import) and written through EventStore::write, the path
// ingest uses, so replaceable, addressable and deletion rules apply as they do
// live. Ephemeral kinds and kind 22242 are never stored, as on ingest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"
#include "engine/rocks_event_store.h"
#include "migrate/progress.h"

namespace buzz::migrate {

class EventLoader {
 public:
  EventLoader(engine::RocksEventStore& store, Progress& progress, size_t batch_rows, unsigned threads)
      : store_(store), progress_(progress), batch_rows_(batch_rows), threads_(threads ? threads : 1) {}

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
  engine::Status flush();

  struct Pending {
    engine::Event event;
    std::string channel;
    std::string label;
    bool deleted = false;
  };
  engine::RocksEventStore& store_;
  Progress& progress_;
  const size_t batch_rows_;
  const unsigned threads_;
  std::vector<Pending> batch_;
  uint64_t stored_ = 0, not_stored_ = 0, deleted_ = 0;
};

// The channel an event belongs to, as ingest decides it: its h tag when that is
// a canonical UUID; for reactions and deletions, the channel of the event they
// point at when it is stored; otherwise none (global).
std::string channel_of(const engine::Event& e, engine::EventStore& store);

}  // namespace buzz::migrate
