// The deliveries' RocksDB instance; see delivery_log.h.
//
// Key: day (4, big-endian) · event id (32) · a write number (8); value: the
// members (32 bytes each) of a run of deliveries of that event. A fan-out
// task appends an event's deliveries one after another, so a flush writes one
// key per event and loop, not one per delivery. A day's keys are one range,
// so dropping it is a DeleteRange, and the table files wholly inside it are
// removed (DeleteFilesInRange) instead of compacted.
#include "engine/delivery_log.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace buzz::engine {
namespace {

constexpr size_t kDayBytes = 4;
constexpr size_t kPrefixBytes = kDayBytes + 32;
constexpr size_t kKeyBytes = kPrefixBytes + 8;
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
  // Write numbers only need to differ from every earlier run's: start from the clock (µs).
  log->next_write_ = uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count());
  return log;
}

RocksDeliveryLog::~RocksDeliveryLog() = default;

Status RocksDeliveryLog::record(std::span<const Delivery> deliveries) {
  if (deliveries.empty()) return {};
  rocksdb::WriteBatch batch;
  char key[kKeyBytes];
  std::string members;
  for (size_t i = 0; i < deliveries.size();) {
    const Delivery& first = deliveries[i];
    members.clear();
    for (; i < deliveries.size() && deliveries[i].event == first.event && deliveries[i].day == first.day; ++i) {
      members.append(reinterpret_cast<const char*>(deliveries[i].member.data()), 32);
    }
    put_day(key, first.day);
    std::memcpy(key + kDayBytes, first.event.data(), 32);
    const uint64_t n = next_write_++;
    for (int b = 0; b < 8; ++b) key[kPrefixBytes + b] = char(n >> (56 - 8 * b));
    batch.Put(rocksdb::Slice(key, kKeyBytes), members);
  }
  // No fsync: a crash loses at most the last deliveries' records, never an event.
  rocksdb::Status s = db_->Write(rocksdb::WriteOptions(), &batch);
  if (!s.ok()) return Error{"error: delivery log write failed: " + s.ToString()};
  return {};
}

Result<std::vector<Pubkey>> RocksDeliveryLog::delivered_to(const Id& event, uint64_t created_at) {
  char prefix[kPrefixBytes];
  put_day(prefix, uint32_t(created_at / kSecondsPerDay));
  std::memcpy(prefix + kDayBytes, event.data(), 32);
  const rocksdb::Slice want(prefix, sizeof prefix);
  std::vector<Pubkey> members;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(want); it->Valid() && it->key().starts_with(want); it->Next()) {
    const rocksdb::Slice v = it->value();
    for (size_t at = 0; at + 32 <= v.size(); at += 32) {
      Pubkey pk;
      std::memcpy(pk.data(), v.data() + at, 32);
      members.push_back(pk);
    }
  }
  if (!it->status().ok()) return Error{"error: delivery log read failed: " + it->status().ToString()};
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  return members;
}

Result<std::vector<std::vector<Pubkey>>> DeliveryLog::delivered_to_each(std::span<const DeliveredQuery> events) {
  std::vector<std::vector<Pubkey>> out;
  out.reserve(events.size());
  for (const DeliveredQuery& q : events) {
    auto members = delivered_to(q.event, q.created_at);
    if (!members) return Error{members.error()};
    out.push_back(std::move(*members));
  }
  return out;
}

Status RocksDeliveryLog::scan(std::string_view after, const RunVisitor& visit) {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  std::vector<Pubkey> members;
  for (it->Seek(rocksdb::Slice(after.data(), after.size())); it->Valid(); it->Next()) {
    const rocksdb::Slice k = it->key(), v = it->value();
    if (k.size() != kKeyBytes || k.ToStringView() == after) continue;
    uint32_t day = 0;
    for (size_t i = 0; i < kDayBytes; ++i) day = (day << 8) | uint8_t(k[i]);
    Id event;
    std::memcpy(event.data(), k.data() + kDayBytes, 32);
    members.resize(v.size() / 32);
    for (size_t i = 0; i < members.size(); ++i) std::memcpy(members[i].data(), v.data() + 32 * i, 32);
    if (!visit(k.ToStringView(), day, event, members)) return {};
  }
  if (!it->status().ok()) return Error{"error: delivery log read failed: " + it->status().ToString()};
  return {};
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
