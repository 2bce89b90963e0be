// list_store_items; see store_items.h.
#include "tools/sync/store_items.h"

#include <filesystem>
#include <limits>

#include "engine/filter.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"

namespace buzz::sync {

engine::Result<std::vector<engine::negentropy::Item>> list_store_items(const std::string& data_dir,
                                                                       const std::string& filter_json) {
  auto filter = engine::parse_filter_json(filter_json);
  if (!filter) return engine::Error{"--filter: " + filter.error()};
  std::vector<engine::negentropy::Item> items;
  // A new appliance has no store yet: its set is empty (its relay creates the store).
  if (!std::filesystem::exists(data_dir + "/db")) return items;
  auto db = engine::RocksDatabase::open(data_dir + "/db", engine::DatabaseOptions{});
  if (!db) return engine::Error{db.error() + " (is its relay running?)"};
  engine::RocksEventStore store(**db);
  // From one index when it answers the filter alone (the common case, and ~10×
  // faster than reading every record); otherwise record by record.
  auto from_index = store.scan_index_keys(*filter, [&](uint64_t created_at, const engine::Id& id) {
    items.push_back({created_at, id});
  });
  if (!from_index) return engine::Error{from_index.error()};
  if (*from_index) return items;
  engine::Status s = store.scan_all(*filter, engine::QueryOptions{}, std::numeric_limits<size_t>::max(),
                                    [&](const engine::EventFields& f) { items.push_back({f.created_at, engine::id_of(f)}); });
  if (!s) return engine::Error{s.error()};
  return items;
}

}  // namespace buzz::sync
