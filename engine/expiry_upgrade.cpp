// The expiry index's upgrade step; see expiry_upgrade.h.
#include "engine/expiry_upgrade.h"

#include <cstdio>
#include <memory>

#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/expiration.h"
#include "engine/hex.h"
#include "engine/rocks_database.h"

namespace buzz::engine {
namespace {

constexpr size_t kExpiryBatchRecords = 10'000;

}  // namespace

Status upgrade_expiry_index(RocksDatabase& db) {
  uint64_t indexed = 0;
  rocksdb::WriteBatch batch;
  for (int f = 0; f < kStorageFamilies; ++f) {
    const auto family = StorageFamily(f);
    rocksdb::ReadOptions read;
    read.total_order_seek = true;  // the record families' memtables are hashed by key
    read.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db.db()->NewIterator(read, db.events(family)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      RecordView rec;
      if (!decode_record(it->value().ToStringView(), &rec)) {
        return Error{"error: unreadable event record " + to_hex(reinterpret_cast<const uint8_t*>(it->key().data()), it->key().size())};
      }
      // Most events have no expiration: a look at the raw JSON spares their parse.
      if (rec.raw.find("\"expiration\"") == std::string_view::npos) continue;
      Result<Event> e = parse_event_json(rec.raw);
      if (!e) continue;
      const std::optional<uint64_t> expires_at = expiration_of(*e);
      if (!expires_at) continue;
      std::string value;
      encode_record(*e, rec.fields.channel, rec.flags, &value);
      std::string kind;
      put_u16(&kind, e->kind);
      (void)batch.Put(db.events(family), it->key(), value);
      (void)batch.Put(db.family(Family::kIndexExpiry), expiry_key(*expires_at, e->created_at, e->id.data()), kind);
      if (++indexed % kExpiryBatchRecords == 0) {
        if (rocksdb::Status s = db.db()->Write(db.write_options(), &batch); !s.ok()) {
          return Error{"error: indexing expirations: " + s.ToString()};
        }
        batch.Clear();
      }
    }
    if (!it->status().ok()) return Error{"error: reading event records: " + it->status().ToString()};
  }
  if (rocksdb::Status s = db.db()->Write(db.write_options(), &batch); !s.ok()) {
    return Error{"error: indexing expirations: " + s.ToString()};
  }
  if (indexed > 0) std::fprintf(stderr, "buzz: indexed %llu events' expirations (NIP-40)\n", (unsigned long long)indexed);
  return {};
}

}  // namespace buzz::engine
