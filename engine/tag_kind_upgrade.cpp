// The tag-and-kind index's upgrade step; see tag_kind_upgrade.h.
#include "engine/tag_kind_upgrade.h"

#include <cstdio>
#include <memory>

#include "engine/event_record.h"
#include "engine/rocks_database.h"

namespace buzz::engine {
namespace {

constexpr size_t kBatchEntries = 10'000;

}  // namespace

Status upgrade_tag_kind_index(RocksDatabase& db) {
  const size_t prefix_bytes = tag_prefix('t', "").size();
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db.db()->NewIterator(read, db.family(Family::kIndexTag)));
  rocksdb::WriteBatch batch;
  uint64_t indexed = 0;
  std::string key;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const rocksdb::Slice k = it->key(), kind = it->value();
    if (k.size() != prefix_bytes + kKeySuffixBytes || kind.size() != 2) {
      return Error{"error: unreadable index.tag entry of " + std::to_string(k.size()) + " bytes"};
    }
    key.assign(k.data(), prefix_bytes);
    key.append(kind.data(), kind.size());
    key.append(k.data() + prefix_bytes, kKeySuffixBytes);
    (void)batch.Put(db.family(Family::kIndexTagKind), key, kind);
    if (++indexed % kBatchEntries == 0) {
      if (rocksdb::Status s = db.db()->Write(db.write_options(), &batch); !s.ok()) {
        return Error{"error: indexing tags by kind: " + s.ToString()};
      }
      batch.Clear();
      if (indexed % 1'000'000 == 0) std::fprintf(stderr, "buzz: indexing tags by kind: %llu\n", (unsigned long long)indexed);
    }
  }
  if (!it->status().ok()) return Error{"error: reading index.tag: " + it->status().ToString()};
  if (rocksdb::Status s = db.db()->Write(db.write_options(), &batch); !s.ok()) {
    return Error{"error: indexing tags by kind: " + s.ToString()};
  }
  if (indexed > 0) std::fprintf(stderr, "buzz: indexed %llu tags by kind\n", (unsigned long long)indexed);
  return {};
}

}  // namespace buzz::engine
