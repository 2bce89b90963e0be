// Data format 2 -> 3 (docs/storage.md, "Format version"): records gained the
// NIP-40 expiration (kRecordExpires) and the index.expiry family the reaper
// scans. Format 2 stored events with an expiration tag as any other, so this
// step finds them, rewrites their records with the expiration and indexes them.
//
// Runs inside RocksDatabase::open (upgrade_data_format), before anything reads
// the store. Every write is idempotent, so a crash part-way just repeats the
// pass at the next open; the format number moves only after it.
#pragma once

#include "engine/result.h"

namespace buzz::engine {

class RocksDatabase;

// Rewrites and indexes every record whose event has an expiration tag.
Status upgrade_expiry_index(RocksDatabase& db);

}  // namespace buzz::engine
