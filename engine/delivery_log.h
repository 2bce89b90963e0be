// DeliveryLog: which members' sessions a node sent each channel event to
// (docs/storage.md, "Deliveries"). The relay appends on its fan-out path into
// per-loop buffers and a flusher thread writes them here; the receipts
// ("delivered to N of M, read by K") read them back.
//
// Partitioned by the event's day (its created_at / 86400), as the original's
// delivery_log is by month: a day's deliveries are one key range, dropped
// whole once past the retention. RocksDeliveryLog keeps them in a RocksDB
// instance of their own, <data-dir>/deliveries, apart from the event store:
// they are a node's own record, not team data, so a backup leaves them out and
// the store's data format does not change with them.
//
// Threads: record() and drop_before() from one thread (the flusher);
// delivered_to(), delivered_to_each() and scan() from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"

namespace rocksdb {
class DB;
}

namespace buzz::engine {

inline constexpr uint64_t kSecondsPerDay = 86400;

// One event sent to one member's session.
struct Delivery {
  Id event{};
  Pubkey member{};
  uint32_t day = 0;  // the event's created_at / kSecondsPerDay: its partition
};

// An event whose deliveries are asked, and its created_at (its partition).
struct DeliveredQuery {
  Id event{};
  uint64_t created_at = 0;
};

class DeliveryLog {
 public:
  virtual ~DeliveryLog() = default;
  // Repeats (a member's several sessions or subscriptions) are kept once.
  virtual Status record(std::span<const Delivery> deliveries) = 0;
  // The members an event was sent to, each once, sorted; `created_at` names its partition.
  virtual Result<std::vector<Pubkey>> delivered_to(const Id& event, uint64_t created_at) = 0;
  // delivered_to() of each event, in the order asked, in one read where the
  // store allows it (a page of receipts): here one delivered_to() per event,
  // which RocksDB answers from memory or its block cache.
  virtual Result<std::vector<std::vector<Pubkey>>> delivered_to_each(std::span<const DeliveredQuery> events);
  // Drops every partition before `day`.
  virtual Status drop_before(uint32_t day) = 0;
};

class RocksDeliveryLog final : public DeliveryLog {
 public:
  // `memtable_bytes`: the one memtable's size (two at most in memory); reads
  // go through a block cache of its own, 8 MiB.
  static Result<std::unique_ptr<RocksDeliveryLog>> open(const std::string& path, size_t memtable_bytes = 4 << 20);
  ~RocksDeliveryLog() override;

  Status record(std::span<const Delivery> deliveries) override;
  Result<std::vector<Pubkey>> delivered_to(const Id& event, uint64_t created_at) override;
  Status drop_before(uint32_t day) override;

  // Every run of deliveries in key order, after the key `after` ("" = from the
  // start), for `buzz migrate export`: its key (the resume point), its event's
  // day, the event and its members. `visit` returns false to stop.
  using RunVisitor = std::function<bool(std::string_view key, uint32_t day, const Id& event, std::span<const Pubkey> members)>;
  Status scan(std::string_view after, const RunVisitor& visit);

 private:
  RocksDeliveryLog() = default;
  std::unique_ptr<rocksdb::DB> db_;
  uint64_t next_write_ = 0;  // each key's last 8 bytes (record() is one thread's)
};

}  // namespace buzz::engine
