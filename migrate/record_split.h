// Where to cut one storage family's records in two halves of about the same
// size, so an export can send them over two connections at once (pg_export.cpp).
#pragma once

#include <string>

#include "engine/rocks_database.h"

namespace buzz::migrate {

// An 8-byte key prefix (the ~created_at of record_key): the records before it
// and from it on hold about half the family's bytes each, by RocksDB's own
// size estimates (no scan). Empty when the family is too small to be worth it.
std::string record_split_prefix(engine::RocksDatabase& db, engine::StorageFamily family);

}  // namespace buzz::migrate
