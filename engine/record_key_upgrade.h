// The one-time move of a data directory's event records from the first
// layout (keyed by id) to the current one (keyed by ~created_at | id, with the
// event_ids family mapping each id to its record; docs/storage.md).
//
// Runs inside RocksDatabase::open, before anything reads the store. It works
// in batches that each move records and write their id entries together, so
// a crash part-way leaves every event findable, and the next open finishes
// the rest. A marker in the default family says the move is done.
#pragma once

#include "engine/result.h"

namespace buzz::engine {

class RocksDatabase;

// Moves every record still keyed by id; logs a line per 100,000 on stderr.
Status upgrade_record_keys(RocksDatabase& db);

}  // namespace buzz::engine
