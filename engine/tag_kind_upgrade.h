// Data format 3 -> 4 (docs/storage.md, "Format version"): the index.tag_kind
// family, each tag entry again with its event's kind before the time, so that
// a filter naming kinds and a tag reads only the tag's entries of those kinds.
// Every index.tag entry already carries its event's kind as its value, so this
// step reads that family alone and writes the new one beside it, in batches.
//
// Runs inside RocksDatabase::open (upgrade_data_format), before anything reads
// the store. Every write is idempotent, so a crash part-way just repeats the
// pass at the next open; the format number moves only after it.
#pragma once

#include "engine/result.h"

namespace buzz::engine {

class RocksDatabase;

// Writes the index.tag_kind entry of every index.tag entry.
Status upgrade_tag_kind_index(RocksDatabase& db);

}  // namespace buzz::engine
