// The (created_at, id) of the events of a filter in a data directory's
// embedded store, read straight from the store: what `buzz sync --data-dir`
// reconciles, listed before its relay starts (the store allows one process).
//
// The listing is the directory's whole set over the filter, as its owner sees
// it, not what the sync key may read, and read from an index when one answers
// the filter, deleted events included: it only decides which ids are asked
// for (a deleted one is not fetched again; asked for upload, its relay returns
// nothing). Everything moved still crosses a relay's read rules (REQ by ids) and
// its ingest (signatures, team rules), as before.
#pragma once

#include <string>
#include <vector>

#include "engine/negentropy.h"
#include "engine/result.h"

namespace buzz::sync {

engine::Result<std::vector<engine::negentropy::Item>> list_store_items(const std::string& data_dir,
                                                                       const std::string& filter_json);

}  // namespace buzz::sync
