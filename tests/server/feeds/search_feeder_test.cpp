// Unit tests for server/search_feeder against a real RocksDB event store and a
// real CLucene index in a temp dir: an offered event is searchable within a
// second; a full queue sends events to the backlog and they are still indexed
// through the store lookup; a remove() wins over an add still waiting (queued
// or in the backlog); stop() drains everything; only searchable kinds count.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "index/clucene_search_index.h"
#include "server/feeds/search_feeder.h"
#include "tests/temp_dir.h"

namespace buzz::server {
namespace {

using namespace std::chrono_literals;

const std::string kChannel = "2f1e0d9c-8b7a-4c5d-9e8f-0a1b2c3d4e5f";

class SearchFeederTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("buzz_feeder_test");
    engine::DatabaseOptions options;
    options.block_cache_bytes = 8 << 20;
    auto db = engine::RocksDatabase::open(dir_ + "/db", options);
    ASSERT_TRUE(db.ok()) << db.error();
    db_ = std::move(db.value());
    store_ = std::make_unique<engine::RocksEventStore>(*db_);
    auto index = index::CLuceneSearchIndex::open(dir_ + "/search");
    ASSERT_TRUE(index.ok()) << index.error();
    index_ = std::move(index.value());
    key_ = engine::generate_keypair();
  }
  void TearDown() override {
    feeder_.reset();
    index_.reset();
    store_.reset();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  void start(SearchFeederOptions options = {}) {
    feeder_ = std::make_unique<SearchFeeder>(*index_, store_event_lookup(*store_), options);
  }

  // Signs and stores an event, as the store writer does before offering it.
  std::shared_ptr<const engine::Event> store(uint16_t kind, std::string content, std::vector<engine::Tag> tags = {},
                                             const std::string& channel = kChannel) {
    if (kind != 5) tags.push_back({"h", channel});
    auto e = std::make_shared<engine::Event>(
        engine::signed_event(key_, kind, 1'700'000'000 + uint64_t(++counter_), std::move(tags), std::move(content)));
    engine::WriteRequest request{e.get(), channel};
    auto written = store_->write(std::span(&request, 1));
    EXPECT_TRUE(written.ok()) << written.error();
    return e;
  }

  index::SearchResult search(const std::string& text) {
    index::SearchQuery q;
    q.text = text;
    q.channels = {kChannel};
    q.limit = index::kMaxSearchLimit;
    auto r = index_->search(q);
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() ? *r : index::SearchResult{};
  }

  // Waits up to `timeout` for `text` to have `total` hits; returns how long it took.
  std::optional<std::chrono::milliseconds> wait_for(const std::string& text, uint64_t total,
                                                    std::chrono::milliseconds timeout = 5s) {
    auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < timeout) {
      if (search(text).total == total) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      }
      std::this_thread::sleep_for(2ms);
    }
    return std::nullopt;
  }

  std::string dir_;
  std::unique_ptr<engine::RocksDatabase> db_;
  std::unique_ptr<engine::RocksEventStore> store_;
  std::unique_ptr<index::CLuceneSearchIndex> index_;
  std::unique_ptr<SearchFeeder> feeder_;
  engine::Keypair key_;
  int counter_ = 0;
};

TEST_F(SearchFeederTest, AnOfferedEventIsSearchableWithinOneSecond) {
  start();
  auto e = store(9, "hello searchable world");
  feeder_->offer(e, kChannel);
  auto took = wait_for("searchable", 1);
  ASSERT_TRUE(took.has_value());
  EXPECT_LT(*took, 1000ms);

  // Also while a stream keeps the worker busy: the last one of a burst.
  for (int i = 0; i < 300; ++i) feeder_->offer(store(9, "burst message " + std::to_string(i)), kChannel);
  took = wait_for("burst", 300);
  ASSERT_TRUE(took.has_value());
  EXPECT_LT(*took, 1000ms);
  EXPECT_EQ(feeder_->metrics().indexed.load(), 301u);
  EXPECT_EQ(feeder_->metrics().overflowed.load(), 0u);
}

TEST_F(SearchFeederTest, AFullQueueOverflowsToTheBacklogAndLosesNothing) {
  start({.capacity = 0});  // every event overflows: the store lookup path alone
  for (int i = 0; i < 50; ++i) feeder_->offer(store(9, "overflow number " + std::to_string(i)), kChannel);
  ASSERT_TRUE(wait_for("overflow", 50).has_value());
  EXPECT_EQ(feeder_->metrics().overflowed.load(), 50u);
  EXPECT_EQ(feeder_->metrics().queued.load(), 0u);
  EXPECT_EQ(feeder_->metrics().indexed.load(), 50u);

  feeder_.reset();
  start({.capacity = 3});
  for (int i = 0; i < 400; ++i) feeder_->offer(store(45001, "mixed path " + std::to_string(i)), kChannel);
  feeder_->stop();
  const SearchFeederMetrics& m = feeder_->metrics();
  EXPECT_EQ(m.queued.load() + m.overflowed.load(), 400u);
  EXPECT_EQ(m.indexed.load(), 400u);
  EXPECT_EQ(m.backlog.load(), 0u);
  EXPECT_EQ(feeder_->lag_seconds(), 0);
  EXPECT_EQ(search("mixed").total, 400u);
}

TEST_F(SearchFeederTest, RemoveWinsOverAnAddStillQueued) {
  start();
  auto gone = store(9, "ephemeral thought");
  auto kept = store(9, "lasting thought");
  feeder_->offer(gone, kChannel);
  feeder_->offer(kept, kChannel);
  feeder_->remove(gone->id);
  feeder_->stop();
  auto r = search("thought");
  ASSERT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.hits[0].id, kept->id);
}

TEST_F(SearchFeederTest, RemoveWinsOverAnAddInTheBacklog) {
  start({.capacity = 0});
  auto gone = store(9, "regrettable remark");
  feeder_->offer(gone, kChannel);
  // The deletion is stored first, then reported, as the pipeline does.
  store(5, "", {{"e", gone->id_hex()}});
  feeder_->remove(gone->id);
  feeder_->stop();
  EXPECT_TRUE(search("regrettable").hits.empty());
  const SearchFeederMetrics& m = feeder_->metrics();
  EXPECT_EQ(m.removed.load(), 1u);
  EXPECT_EQ(m.indexed.load() + m.vanished.load(), 1u);  // re-read before or after the deletion
  EXPECT_EQ(m.errors.load(), 0u);
}

TEST_F(SearchFeederTest, RemoveChannelDropsItsDocuments) {
  start();
  feeder_->offer(store(9, "channel wide"), kChannel);
  feeder_->offer(store(9, "channel wide too"), kChannel);
  feeder_->remove_channel(kChannel);
  feeder_->stop();
  EXPECT_TRUE(search("channel").hits.empty());
}

TEST_F(SearchFeederTest, StopDrainsEverythingOffered) {
  start({.capacity = 50, .commit_interval = 10s});  // no commit before stop() but the first
  for (int i = 0; i < 500; ++i) feeder_->offer(store(9, "drained item " + std::to_string(i)), kChannel);
  feeder_->stop();
  EXPECT_EQ(search("drained").total, 500u);
  EXPECT_EQ(feeder_->metrics().backlog.load(), 0u);
  EXPECT_EQ(feeder_->metrics().oldest_pending_ns.load(), 0);
  feeder_->offer(store(9, "drained late"), kChannel);  // after stop: dropped, not queued
  feeder_->stop();
  EXPECT_EQ(search("drained").total, 500u);
}

TEST_F(SearchFeederTest, OnlySearchableKindsAreTaken) {
  start();
  feeder_->offer(store(7, "+", {{"e", std::string(64, 'a')}}), kChannel);
  feeder_->offer(store(40099, "{}"), kChannel);
  feeder_->offer(nullptr, kChannel);
  feeder_->stop();
  EXPECT_EQ(feeder_->metrics().queued.load(), 0u);
  EXPECT_EQ(index_->size(), 0u);
}

TEST_F(SearchFeederTest, LagShowsTheOldestChangeNotYetSearchable) {
  start({.capacity = 1000, .commit_interval = 10s});
  EXPECT_EQ(feeder_->lag_seconds(), 0);
  feeder_->offer(store(9, "first commits at once"), kChannel);
  ASSERT_TRUE(wait_for("first", 1).has_value());
  feeder_->offer(store(9, "second waits for the interval"), kChannel);
  std::this_thread::sleep_for(100ms);
  EXPECT_GT(feeder_->lag_seconds(), 0.05);
  EXPECT_LT(feeder_->lag_seconds(), 5);
  EXPECT_TRUE(search("second").hits.empty());
  feeder_->stop();
  EXPECT_EQ(feeder_->lag_seconds(), 0);
  EXPECT_EQ(search("second").total, 1u);
}

// waiting() is what the store writer holds ingest back for; stalled() is when it stops.
TEST_F(SearchFeederTest, WaitingCountsAddsUntilAppliedAndAStuckWorkerIsStalled) {
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  EventLookup real = store_event_lookup(*store_);
  EventLookup held = [&](const engine::Id& id) {  // the worker's first re-read blocks until released
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return released; });
    return real(id);
  };
  feeder_ = std::make_unique<SearchFeeder>(*index_, held, SearchFeederOptions{.capacity = 0});
  EXPECT_EQ(feeder_->waiting(), 0u);
  EXPECT_FALSE(feeder_->stalled());
  for (int i = 0; i < 5; ++i) feeder_->offer(store(9, "held back " + std::to_string(i)), kChannel);
  feeder_->offer(store(7, "+"), kChannel);  // not searchable: never waits
  EXPECT_EQ(feeder_->waiting(), 5u);
  EXPECT_FALSE(feeder_->stalled()) << "a wait just begun is not a stall";
  std::this_thread::sleep_for(SearchFeeder::kStallAfter + 200ms);
  EXPECT_TRUE(feeder_->stalled());
  {
    std::lock_guard lock(mu);
    released = true;
  }
  cv.notify_all();
  ASSERT_TRUE(wait_for("held", 5).has_value());
  EXPECT_EQ(feeder_->waiting(), 0u);
  EXPECT_FALSE(feeder_->stalled());
}

}  // namespace
}  // namespace buzz::server
