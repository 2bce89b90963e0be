// The deliveries' RocksDB instance; see delivery_log.h.
//
// Key: day (4, big-endian) · event id (32) · member (32); no value. A day's
// keys are one range, so dropping it is a DeleteRange, and the table files
// wholly inside it are removed (DeleteFilesInRange) instead of compacted.
#include "engine/delivery_log.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstring>

namespace buzz::engine {
namespace {

constexpr size_t kDayBytes = 4;
constexpr size_t kKeyBytes = kDayBytes + 32 + 32;
constexpr size_t kBlockCacheBytes = 8 << 20;  // its own, apart from the event store's

void put_day(char* out, uint32_t day) {
  for (int i = 0; i < 4; ++i) out[i] = char(day >> (24 - 8 * i));
}

std::string day_key(uint32_t day) {
  std::string k(kDayBytes, '\0');
  put_day(k.data(), day);
  return k;
}

}  // namespace

Result<std::unique_ptr<RocksDeliveryLog>> RocksDeliveryLog::open(const std::string& path, size_t memtable_bytes) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = memtable_bytes;
  options.max_write_buffer_number = 2;
  options.max_open_files = 64;
  options.keep_log_file_num = 2;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(kBlockCacheBytes);
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  if (!s.ok()) return Error{"cannot open the delivery log " + path + ": " + s.ToString()};
  std::unique_ptr<RocksDeliveryLog> log(new RocksDeliveryLog());
  log->db_.reset(raw);
  return log;
}

RocksDeliveryLog::~RocksDeliveryLog() = default;

Status RocksDeliveryLog::record(std::span<const Delivery> deliveries) {
  if (deliveries.empty()) return {};
  rocksdb::WriteBatch batch;
  char key[kKeyBytes];
  for (const Delivery& d : deliveries) {
    put_day(key, d.day);
    std::memcpy(key + kDayBytes, d.event.data(), 32);
    std::memcpy(key + kDayBytes + 32, d.member.data(), 32);
    batch.Put(rocksdb::Slice(key, kKeyBytes), rocksdb::Slice());
  }
  // No fsync: a crash loses at most the last deliveries' records, never an event.
  rocksdb::Status s = db_->Write(rocksdb::WriteOptions(), &batch);
  if (!s.ok()) return Error{"error: delivery log write failed: " + s.ToString()};
  return {};
}

Result<std::vector<Pubkey>> RocksDeliveryLog::delivered_to(const Id& event, uint64_t created_at) {
  char prefix[kDayBytes + 32];
  put_day(prefix, uint32_t(created_at / kSecondsPerDay));
  std::memcpy(prefix + kDayBytes, event.data(), 32);
  const rocksdb::Slice want(prefix, sizeof prefix);
  std::vector<Pubkey> members;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(want); it->Valid() && it->key().starts_with(want); it->Next()) {
    if (it->key().size() != kKeyBytes) continue;
    Pubkey pk;
    std::memcpy(pk.data(), it->key().data() + kDayBytes + 32, 32);
    members.push_back(pk);
  }
  if (!it->status().ok()) return Error{"error: delivery log read failed: " + it->status().ToString()};
  return members;
}

Status RocksDeliveryLog::drop_before(uint32_t day) {
  const std::string from = day_key(0), to = day_key(day);
  rocksdb::ColumnFamilyHandle* cf = db_->DefaultColumnFamily();
  rocksdb::Status s = db_->DeleteRange(rocksdb::WriteOptions(), cf, from, to);
  if (s.ok()) {
    const rocksdb::Slice begin(from), end(to);
    s = rocksdb::DeleteFilesInRange(db_.get(), cf, &begin, &end);
  }
  if (!s.ok()) return Error{"error: delivery log retention failed: " + s.ToString()};
  return {};
}

}  // namespace buzz::engine
