// The halfway cut; see record_split.h.
#include "migrate/record_split.h"

#include <memory>

#include "engine/event_record.h"

namespace buzz::migrate {

namespace {

constexpr uint64_t kMinBytesToSplit = 4 << 20;  // below this one connection is as quick

uint64_t approximate_bytes(engine::RocksDatabase& db, engine::StorageFamily family, const std::string& from,
                           const std::string& to) {
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  rocksdb::Range range(from, to);
  uint64_t size = 0;
  if (!db.db()->GetApproximateSizes(options, db.events(family), &range, 1, &size).ok()) return 0;
  return size;
}

std::string prefix_of(uint64_t v) {
  std::string out;
  engine::put_u64(&out, v);
  return out;
}

}  // namespace

std::string record_split_prefix(engine::RocksDatabase& db, engine::StorageFamily family) {
  rocksdb::ReadOptions read;
  read.total_order_seek = true;  // the record families' memtables are hashed by key
  std::unique_ptr<rocksdb::Iterator> it(db.db()->NewIterator(read, db.events(family)));
  it->SeekToFirst();
  if (!it->Valid() || it->key().size() < 8) return {};
  uint64_t lo = engine::get_u64(it->key().data());
  it->SeekToLast();
  if (!it->Valid() || it->key().size() < 8) return {};
  uint64_t hi = engine::get_u64(it->key().data());
  if (hi <= lo + 1) return {};
  const std::string first = prefix_of(lo), end = prefix_of(hi + 1);
  const uint64_t total = approximate_bytes(db, family, first, end);
  if (total < kMinBytesToSplit) return {};
  // The smallest prefix with at least half the bytes before it.
  uint64_t a = lo + 1, b = hi;
  while (a < b) {
    const uint64_t mid = a + (b - a) / 2;
    if (approximate_bytes(db, family, first, prefix_of(mid)) * 2 >= total) b = mid;
    else a = mid + 1;
  }
  return prefix_of(a);
}

}  // namespace buzz::migrate
