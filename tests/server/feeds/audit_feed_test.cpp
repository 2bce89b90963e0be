// Unit tests for server/feeds/audit_feed against a real RocksDB event store and
// a real audit log in a temp dir: every pending copy is erased once its records
// are in the chain, and the erases never overlap. Overlapping range deletes (all
// from ticket 0, as they once were) made the flush of the audit_pending family
// allocate gigabytes: RocksDB fragments range tombstones, and n nested ranges
// fragment into n pieces each covered by up to n of them.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/audit_log.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "server/feeds/audit_feed.h"
#include "tests/temp_dir.h"

namespace buzz::server {
namespace {

using namespace std::chrono_literals;

// The real store, with every erase_state range noted on the way through.
class NotingStore : public engine::EventStore {
 public:
  explicit NotingStore(engine::RocksDatabase& db) : inner_(db) {}
  engine::Result<std::vector<engine::WriteResult>> write(std::span<const engine::WriteRequest> requests,
                                                 std::span<const engine::StateWrite> state,
                                                 const engine::WriteFinisher& finish) override {
    return inner_.write(requests, state, finish);
  }
  bool contains(const engine::Id& id, uint16_t kind) override { return inner_.contains(id, kind); }
  engine::Status query(const engine::Filter& f, const engine::QueryOptions& o, const engine::EventSink& sink) override {
    return inner_.query(f, o, sink);
  }
  engine::Status scan_kind(uint16_t kind, const engine::EventSink& sink) override { return inner_.scan_kind(kind, sink); }
  engine::Status scan_all(const engine::Filter& f, const engine::QueryOptions& o, size_t max,
                          const std::function<void(const engine::EventFields&)>& sink) override {
    return inner_.scan_all(f, o, max, sink);
  }
  engine::Result<uint64_t> count(std::span<const engine::Filter> f, const engine::QueryOptions& o) override {
    return inner_.count(f, o);
  }
  std::optional<std::string> get(const engine::Id& id) override { return inner_.get(id); }
  std::optional<engine::StoredEvent> lookup(const engine::Id& id) override { return inner_.lookup(id); }
  engine::Result<std::vector<engine::ExpiredEvent>> expired(uint64_t now, size_t max) override {
    return inner_.expired(now, max);
  }
  engine::Status erase_expired(std::span<const engine::ExpiredEvent> e, std::span<const engine::StateWrite> s) override {
    return inner_.erase_expired(e, s);
  }
  std::optional<std::string> get_state(engine::StateTable t, std::string_view key) override {
    return inner_.get_state(t, key);
  }
  engine::Status scan_state(engine::StateTable t,
                            const std::function<void(std::string_view, std::string_view)>& visit) override {
    return inner_.scan_state(t, visit);
  }
  engine::Status scan_state_prefix(engine::StateTable t, std::string_view prefix,
                                  const std::function<void(std::string_view, std::string_view)>& visit) override {
    return inner_.scan_state_prefix(t, prefix, visit);
  }
  engine::Status put_state(engine::StateTable t, std::string_view key, std::string_view value) override {
    return inner_.put_state(t, key, value);
  }
  engine::Status put_states(std::span<const engine::StateWrite> writes) override { return inner_.put_states(writes); }
  engine::Status update_state(engine::StateTable t, std::string_view key, const engine::StateChange& change) override {
    return inner_.update_state(t, key, change);
  }
  engine::Status erase_state(engine::StateTable t, std::string_view from, std::string_view to) override {
    {
      std::lock_guard lock(mutex_);
      erased_.emplace_back(std::string(from), std::string(to));
    }
    return inner_.erase_state(t, from, to);
  }
  std::vector<std::pair<std::string, std::string>> erased() {
    std::lock_guard lock(mutex_);
    return erased_;
  }

 private:
  engine::RocksEventStore inner_;
  std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> erased_;
};

engine::AuditRecord feed_record(int i) {
  engine::AuditRecord r;
  char id[65];
  std::snprintf(id, sizeof id, "%064x", unsigned(i));
  r.event_id = id;
  r.kind = 9;
  r.actor = std::string(64, 'b');
  r.action = std::string(engine::kActionEventCreated);
  return r;
}

class AuditFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_audit_feed_test");
    ASSERT_FALSE(dir_.empty());
    engine::DatabaseOptions options;
    options.block_cache_bytes = 8 << 20;
    auto db = engine::RocksDatabase::open(dir_ + "/db", options);
    ASSERT_TRUE(db.ok()) << db.error();
    db_ = std::move(db.value());
    store_ = std::make_unique<NotingStore>(*db_);
    engine::AuditOptions audit_options;
    audit_options.on_durable = [this](uint64_t ticket) { feed_->on_durable(ticket); };
    auto log = engine::AuditLog::open(dir_ + "/audit", audit_options);
    ASSERT_TRUE(log.ok()) << log.error();
    log_ = std::move(log.value());
    feed_ = std::make_unique<AuditFeed>(*store_, *log_, audit_options.queue_capacity);
    ASSERT_TRUE(feed_->recover().ok());
  }
  void TearDown() override {
    log_.reset();  // stops the writer (and its on_durable calls) before the feed goes
    feed_.reset();
    store_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  // One store-writer batch of `n` records: the pending copy goes in with the
  // batch, as the store writer writes it, then the batch is committed.
  void batch(int first, int n) {
    for (int i = first; i < first + n; ++i) feed_->add(feed_record(i));
    auto pending = feed_->pending_write();
    ASSERT_TRUE(pending.has_value());
    ASSERT_TRUE(store_->put_state(pending->table, pending->key, pending->value).ok());
    feed_->commit(true);
  }

  size_t pending_copies() {
    size_t n = 0;
    EXPECT_TRUE(store_->scan_state(engine::StateTable::kAuditPending, [&](auto, auto) { ++n; }).ok());
    return n;
  }

  std::string dir_;
  std::unique_ptr<engine::RocksDatabase> db_;
  std::unique_ptr<NotingStore> store_;
  std::unique_ptr<engine::AuditLog> log_;
  std::unique_ptr<AuditFeed> feed_;
};

TEST_F(AuditFeedTest, PendingCopiesAreErasedOnceInTheChainWithoutOverlap) {
  int next = 0;
  for (int b = 0; b < 50; ++b) {
    batch(next, 1 + b % 4);
    next += 1 + b % 4;
    if (b % 10 == 0) std::this_thread::sleep_for(5ms);  // let the log's groups end between batches
  }
  feed_->flush();
  for (int i = 0; i < 200 && pending_copies() != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(pending_copies(), 0u);
  EXPECT_EQ(log_->head().seq, uint64_t(next));

  const auto erased = store_->erased();
  ASSERT_FALSE(erased.empty());
  EXPECT_EQ(erased.front().first, audit_ticket_key(0));
  for (size_t i = 1; i < erased.size(); ++i) {
    EXPECT_EQ(erased[i].first, erased[i - 1].second) << "erase " << i << " overlaps or leaves a gap";
    EXPECT_LT(erased[i].first, erased[i].second);
  }
  EXPECT_EQ(erased.back().second, audit_ticket_key(uint64_t(next) + 1));  // tickets start at 1
}

}  // namespace
}  // namespace buzz::server
