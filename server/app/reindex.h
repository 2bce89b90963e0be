// The full-text index rebuilt from the event store: `buzz reindex`, and
// `buzz restore`, whose backups carry no index (docs/storage.md, "Backup").
#pragma once

#include <cstdint>
#include <string>

#include "engine/result.h"

namespace buzz::server {

struct ReindexReport {
  uint64_t indexed = 0;
  uint64_t unreadable = 0;  // stored events that no longer parse
};

// Opens <data_dir>/db (takes its lock) and replaces <data_dir>/search; a
// progress bar on stderr when `bar`.
engine::Result<ReindexReport> rebuild_search_index(const std::string& data_dir, bool bar);

}  // namespace buzz::server
