// The record-key move; see record_key_upgrade.h.
#include "engine/record_key_upgrade.h"

#include <cstdio>
#include <memory>

#include "engine/event_record.h"
#include "engine/hex.h"
#include "engine/rocks_database.h"

namespace buzz::engine {
namespace {

constexpr const char* kLayoutKey = "record_layout";
constexpr const char* kLayoutByTime = "2";  // records keyed by ~created_at | id
constexpr size_t kKeyUpgradeBatchRecords = 10'000;
constexpr size_t kOldKeyBytes = 32;  // the first layout: the id alone

}  // namespace

Status upgrade_record_keys(RocksDatabase& db) {
  std::string layout;
  if (db.db()->Get(rocksdb::ReadOptions(), db.defaults(), kLayoutKey, &layout).ok() && layout == kLayoutByTime) return {};
  uint64_t moved = 0;
  for (int f = 0; f < kStorageFamilies; ++f) {
    const auto family = StorageFamily(f);
    rocksdb::ReadOptions read;
    read.total_order_seek = true;  // the record families' memtables are hashed by key
    std::unique_ptr<rocksdb::Iterator> it(db.db()->NewIterator(read, db.events(family)));
    rocksdb::WriteBatch batch;
    auto flush = [&]() -> Status {
      if (batch.Count() == 0) return {};
      rocksdb::Status s = db.db()->Write(db.write_options(), &batch);
      batch.Clear();
      if (!s.ok()) return Error{"error: moving event records: " + s.ToString()};
      return {};
    };
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().size() != kOldKeyBytes) continue;  // already moved
      RecordView rec;
      if (!decode_record(it->value().ToStringView(), &rec)) {
        return Error{"error: unreadable event record " + to_hex(reinterpret_cast<const uint8_t*>(it->key().data()), 32)};
      }
      const std::string key = record_key(rec.fields.created_at, rec.fields.id);
      (void)batch.Put(db.events(family), key, it->value());
      (void)batch.Put(db.family(Family::kEventIds), it->key(), event_id_entry(family, rec.fields.created_at));
      (void)batch.Delete(db.events(family), it->key());
      if (++moved % kKeyUpgradeBatchRecords == 0) {
        if (Status s = flush(); !s) return s;
        if (moved % 100'000 == 0) std::fprintf(stderr, "buzz: moving event records to the time-ordered layout: %llu\n", (unsigned long long)moved);
      }
    }
    if (!it->status().ok()) return Error{"error: reading event records: " + it->status().ToString()};
    if (Status s = flush(); !s) return s;
  }
  rocksdb::Status s = db.db()->Put(db.write_options(), db.defaults(), kLayoutKey, kLayoutByTime);
  if (!s.ok()) return Error{"error: recording the record layout: " + s.ToString()};
  if (moved > 0) std::fprintf(stderr, "buzz: moved %llu event records to the time-ordered layout\n", (unsigned long long)moved);
  return {};
}

}  // namespace buzz::engine
