// History: what a caller may read of the stored events. One filter's rows, from
// the store or, for a NIP-50 filter, from the full-text index — always within
// the read rules of server/access/read_access.h. REQ and COUNT on the socket,
// and the HTTP API's search, bridge and feed, all read through here.
//
// Any thread: the store and the index take their own locks.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/event_store.h"
#include "engine/filter.h"
#include "engine/team_state.h"
#include "index/search_index.h"
#include "server/access/grant.h"

namespace buzz::server {

// One stored event as read back: its id, its bytes as received, its channel.
struct EventRow {
  engine::Id id;
  std::string raw;
  std::string channel;
};

// A store query's `accept`: whether one caller may read a stored row.
using Readable = std::function<bool(const engine::EventFields&)>;

class History {
 public:
  // `search` may be null: full-text search is then "not enabled".
  History(engine::EventStore& store, const engine::TeamState& team, index::SearchIndex* search)
      : store_(store), team_(team), search_(search) {}

  // readable_by (read_access.h) for one caller; `grant` must outlive it.
  Readable readable_to(const Grant& grant, const engine::Pubkey& reader) const;
  // One filter's history as a REQ replays it: from the store, or from the
  // search index for a NIP-50 filter. The error is a CLOSED reason.
  engine::Result<std::vector<EventRow>> rows(const engine::Filter& f, const engine::Pubkey& who, const Grant& grant,
                                             const Readable& readable);
  // The index query that covers exactly what the caller may read.
  index::SearchQuery search_scope(const engine::Pubkey& who, const Grant& grant) const;
  // The hits still live, readable and matching `rest` (the filter without its search), in hit order.
  std::vector<EventRow> search_hits(const index::SearchResult& result, engine::Filter rest, const Readable& readable);
  index::SearchIndex* search_index() const { return search_; }

 private:
  engine::EventStore& store_;
  const engine::TeamState& team_;
  index::SearchIndex* search_;
};

}  // namespace buzz::server
