// The event-store suite's fixtures: EventStoreTest runs each TEST_P on both
// backends, a RocksEventStore on a real RocksDB in a fresh temp dir and a
// PgEventStore in a fresh database on the ctest fixture's PostgreSQL cluster
// (tests/migrate/pg_test_db.h; without it the PostgreSQL cases fail, as every
// PostgreSQL test does); RocksStoreTest (and a suite instantiated with
// BUZZ_ON_ROCKSDB) is the embedded store alone, for its on-disk layout. Both give write/query/count shorthands, and the event
// helpers the event_store_*test.cpp files share. Keys are fixed (key(n)),
// event contents distinct, so otherwise equal events still get distinct ids.
// Channels are canonical UUIDs (channel(n)), as the PostgreSQL schema requires.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "migrate/pg_event_store.h"
#include "tests/migrate/pg_test_db.h"
#include "tests/temp_dir.h"

namespace buzz::engine {

// Readable gtest output for outcomes (found by argument-dependent lookup).
inline void PrintTo(WriteOutcome o, std::ostream* os) {
  static const char* const kNames[] = {"kStored", "kDuplicate", "kStale", "kInvalid"};
  *os << (size_t(o) < 4 ? kNames[size_t(o)] : "WriteOutcome(?)");
}

inline Keypair key(uint8_t n) {
  SecretKey s{};
  s[0] = 0x42;
  s[31] = n;
  return *keypair_from_secret(s);
}

// Distinct content per event so that otherwise equal events get distinct ids.
inline Event make_event(const Keypair& k, uint16_t kind, uint64_t created_at, std::vector<Tag> tags = {},
                        std::string content = {}) {
  static int counter = 0;
  if (content.empty()) content = "event " + std::to_string(++counter);
  return signed_event(k, kind, created_at, std::move(tags), std::move(content));
}

inline std::string hex(const Event& e) { return e.id_hex(); }

// A canonical channel id, distinct per n.
inline std::string channel(uint8_t n) {
  char text[37];
  std::snprintf(text, sizeof text, "00000000-0000-4000-8000-0000000000%02x", n);
  return text;
}

enum class Backend : uint8_t { kRocksDB, kPostgreSQL };

// The end of a test's name: ctest runs the ones ending in PostgreSQL with the
// cluster fixture (tests/CMakeLists.txt).
inline std::string backend_name(Backend b) { return b == Backend::kRocksDB ? "RocksDB" : "PostgreSQL"; }
inline void PrintTo(Backend b, std::ostream* os) { *os << backend_name(b); }
inline std::string backend_param_name(const ::testing::TestParamInfo<Backend>& info) { return backend_name(info.param); }

class EventStoreFixture : public ::testing::Test {
 protected:
  virtual Backend backend() const { return Backend::kRocksDB; }

  void SetUp() override {
    if (backend() == Backend::kPostgreSQL) {
      static int databases = 0;
      pg_ = std::make_unique<test::PgTestDb>("buzz_store_" + std::to_string(getpid()) + "_" + std::to_string(++databases));
    } else {
      dir_ = make_temp_dir("buzz_store_test");
    }
    open();
  }
  void TearDown() override {
    close();
    pg_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  void open() {
    if (pg_) {
      auto pg = migrate::PgEventStore::open(pg_->url(), "test");
      ASSERT_TRUE(pg.ok()) << pg.error();
      store_ = std::move(pg.value());
      return;
    }
    DatabaseOptions options;
    options.block_cache_bytes = 8 << 20;
    auto db = RocksDatabase::open(dir_ + "/db", options);
    ASSERT_TRUE(db.ok()) << db.error();
    db_ = std::move(db.value());
    store_ = std::make_unique<RocksEventStore>(*db_);
  }
  void close() {
    store_.reset();
    db_.reset();
  }
  void reopen() {
    close();
    open();
  }
  // The embedded store, for what only it has (RocksStoreTest).
  RocksEventStore& rocks() { return static_cast<RocksEventStore&>(*store_); }

  std::vector<WriteResult> write_batch(const std::vector<std::pair<const Event*, std::string>>& batch) {
    std::vector<WriteRequest> requests;
    for (const auto& [e, channel] : batch) requests.push_back({e, channel});
    auto r = store_->write(requests);
    EXPECT_TRUE(r.ok()) << r.error();
    if (!r.ok()) return {};
    EXPECT_EQ(r->size(), batch.size());
    return *r;
  }
  WriteResult write(const Event& e, const std::string& channel = {}) {
    auto results = write_batch({{&e, channel}});
    return results.empty() ? WriteResult{} : results[0];
  }

  std::vector<std::string> query(const Filter& f, const QueryOptions& options = {}) {
    std::vector<std::string> ids;
    Status s = store_->query(f, options, [&](std::string_view raw, const EventFields& fields) {
      ids.push_back(to_hex(fields.id, 32));
      // The raw JSON handed out is the stored event's own text.
      auto parsed = parse_event_json_copy(raw);
      EXPECT_EQ(parsed, ids.back());
    });
    EXPECT_TRUE(s.ok()) << s.error();
    return ids;
  }
  std::vector<std::string> query(const std::string& filter_json, size_t limit = kMaxQueryLimit) {
    auto f = parse_filter_json(filter_json);
    EXPECT_TRUE(f.ok()) << filter_json << ": " << f.error();
    QueryOptions options;
    options.limit = limit;
    return f.ok() ? query(*f, options) : std::vector<std::string>{};
  }
  uint64_t count(const std::vector<std::string>& filter_jsons, const QueryOptions& options = {}) {
    std::vector<Filter> filters;
    for (const auto& j : filter_jsons) {
      auto f = parse_filter_json(j);
      EXPECT_TRUE(f.ok()) << j << ": " << f.error();
      if (f.ok()) filters.push_back(*f);
    }
    auto n = store_->count(filters, options);
    EXPECT_TRUE(n.ok()) << n.error();
    return n.ok() ? *n : 0;
  }

  // The id field of a stored raw event (the raw must be a parseable event).
  static std::string parse_event_json_copy(std::string_view raw) {
    auto e = parse_event_json(std::string(raw));
    return e.ok() ? e->id_hex() : "<unparseable raw>";
  }

  std::string dir_;
  std::unique_ptr<test::PgTestDb> pg_;
  std::unique_ptr<RocksDatabase> db_;
  std::unique_ptr<EventStore> store_;
  Keypair alice = key(1);
  Keypair bob = key(2);
  Keypair carol = key(3);
  const std::string chan = channel(1);
  const std::string other = channel(2);
};

// Each TEST_P on both backends.
class EventStoreTest : public EventStoreFixture, public ::testing::WithParamInterface<Backend> {
 protected:
  Backend backend() const override { return GetParam(); }
};

// Instantiates a suite derived from EventStoreTest on both backends: its tests
// are Stores/Suite.Name/RocksDB and Stores/Suite.Name/PostgreSQL.
#define BUZZ_ON_BOTH_STORES(Suite)                                                                          \
  INSTANTIATE_TEST_SUITE_P(Stores, Suite, ::testing::Values(Backend::kRocksDB, Backend::kPostgreSQL), \
                           backend_param_name)

// The embedded store alone, for its on-disk layout.
class RocksStoreTest : public EventStoreTest {};

#define BUZZ_ON_ROCKSDB(Suite) INSTANTIATE_TEST_SUITE_P(Stores, Suite, ::testing::Values(Backend::kRocksDB), backend_param_name)

inline std::vector<std::string> ids_of(std::vector<const Event*> events) {
  std::vector<std::string> out;
  for (const Event* e : events) out.push_back(hex(*e));
  return out;
}

// Events sorted the way the store must return them.
inline std::vector<std::string> newest_first(std::vector<const Event*> events) {
  std::sort(events.begin(), events.end(), [](const Event* a, const Event* b) {
    if (a->created_at != b->created_at) return a->created_at > b->created_at;
    return a->id < b->id;
  });
  return ids_of(events);
}

inline std::string authors_json(std::initializer_list<const Keypair*> keys) {
  std::string out = "[";
  for (const Keypair* k : keys) out += (out.size() > 1 ? ",\"" : "\"") + to_hex(k->pubkey) + "\"";
  return out + "]";
}

}  // namespace buzz::engine
