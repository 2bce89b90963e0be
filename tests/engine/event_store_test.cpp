// Unit tests of both event stores (engine/rocks_event_store + event_record,
// migrate/pg_event_store; the fixture, event_store_fixture.h): insert and query
// order (created_at desc, id asc), duplicates, every filter shape and its
// index plan, limits and the accept gate, distinct COUNT, the #h channel
// fallback, durability across reopen, and the unbounded per-kind scan of
// start-up loaders; on RocksDB alone, its record layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/canonical.h"
#include "engine/data_format.h"
#include "engine/event_record.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "tests/engine/event_store_fixture.h"

namespace buzz::engine {
namespace {

BUZZ_ON_BOTH_STORES(EventStoreTest);
BUZZ_ON_ROCKSDB(RocksStoreTest);

// ---------------------------------------------------------------------------
// insert, order, duplicates

TEST_P(EventStoreTest, QueryReturnsNewestFirst) {
  Event a = make_event(alice, 1, 100), b = make_event(alice, 1, 300), c = make_event(alice, 1, 200);
  EXPECT_EQ(write(a).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(b).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(c).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query("{}"), ids_of({&b, &c, &a}));
}

TEST_P(EventStoreTest, TiesAreBrokenByLowestId) {
  std::vector<Event> events;
  for (int i = 0; i < 8; ++i) events.push_back(make_event(alice, 1, 500));
  events.push_back(make_event(alice, 1, 501));
  events.push_back(make_event(alice, 1, 499));
  for (const Event& e : events) ASSERT_EQ(write(e).outcome, WriteOutcome::kStored);
  std::vector<const Event*> ptrs;
  for (const Event& e : events) ptrs.push_back(&e);
  std::vector<std::string> expected = newest_first(ptrs);
  EXPECT_EQ(query("{}"), expected);
  EXPECT_EQ(query(R"({"kinds":[1]})"), expected);
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice}) + "}"), expected);
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice}) + R"(,"kinds":[1]})"), expected);
  std::string ids = "[";
  for (const Event& e : events) ids += (ids.size() > 1 ? ",\"" : "\"") + hex(e) + "\"";
  EXPECT_EQ(query(R"({"ids":)" + ids + "]}"), expected);
}

TEST_P(EventStoreTest, StoredValueRoundTripsThroughTheRecord) {
  Event e = make_event(alice, 9, 1234, {{"h", chan}, {"p", to_hex(bob.pubkey)}, {"imeta", "url x"}, {"t"}});
  ASSERT_EQ(write(e, chan).outcome, WriteOutcome::kStored);
  Filter f;
  std::vector<EventFields> seen;
  std::string raw;
  ASSERT_TRUE(store_->query(f, {}, [&](std::string_view r, const EventFields& fields) {
    raw = std::string(r);
    EXPECT_EQ(std::memcmp(fields.id, e.id.data(), 32), 0);
    EXPECT_EQ(std::memcmp(fields.pubkey, e.pubkey.data(), 32), 0);
    EXPECT_EQ(fields.created_at, 1234u);
    EXPECT_EQ(fields.kind, 9);
    EXPECT_EQ(fields.channel, chan);
    ASSERT_EQ(fields.tags.size(), 2u);
    EXPECT_EQ(fields.tags[0].name, 'h');
    EXPECT_EQ(fields.tags[0].value, chan);
    EXPECT_EQ(fields.tags[1].name, 'p');
    EXPECT_EQ(fields.tags[1].value, to_hex(bob.pubkey));
    seen.push_back(fields);
  }).ok());
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(raw, e.raw);
}

TEST_P(RocksStoreTest, RecordEncodingRoundTrips) {
  Event e = make_event(alice, 30023, 77, {{"d", "slug"}, {"e", std::string(300, 'x')}, {"title", "t"}});
  std::string value;
  encode_record(e, "channel-id", 0, &value);
  RecordView rec;
  ASSERT_TRUE(decode_record(value, &rec));
  EXPECT_FALSE(rec.deleted());
  EXPECT_EQ(rec.raw, e.raw);
  EXPECT_EQ(rec.fields.channel, "channel-id");
  EXPECT_EQ(rec.fields.kind, 30023);
  EXPECT_EQ(rec.fields.created_at, 77u);
  ASSERT_EQ(rec.fields.tags.size(), 2u);
  EXPECT_EQ(rec.fields.tags[1].value, std::string(300, 'x'));
  set_record_flags(&value, kRecordDeleted);
  ASSERT_TRUE(decode_record(value, &rec));
  EXPECT_TRUE(rec.deleted());
  // Truncated or foreign values are refused rather than misread.
  EXPECT_FALSE(decode_record(std::string_view(value).substr(0, 50), &rec));
  std::string wrong_version = value;
  wrong_version[0] = char(kRecordVersion + 1);
  EXPECT_FALSE(decode_record(wrong_version, &rec));
}

TEST_P(RocksStoreTest, KeySuffixSortsNewestFirstThenLowestId) {
  Id low{}, high{};
  high[0] = 1;
  std::string newer, older, tie_low, tie_high;
  put_key_suffix(&newer, 200, low.data());
  put_key_suffix(&older, 100, low.data());
  put_key_suffix(&tie_low, 100, low.data());
  put_key_suffix(&tie_high, 100, high.data());
  EXPECT_EQ(newer.size(), kKeySuffixBytes);
  EXPECT_LT(newer, older);
  EXPECT_LT(tie_low, tie_high);
  std::string n;
  put_u64(&n, 0x0102030405060708ull);
  EXPECT_EQ(get_u64(n.data()), 0x0102030405060708ull);
  put_u16(&n, 0xABCD);
  EXPECT_EQ(get_u16(n.data() + 8), 0xABCD);
}

// A batch's index entries are written sorted (RocksEventStore::Batch::finish):
// an event stored and deleted in one batch must still leave no entry behind,
// since queries skip a deleted record and would not show a stale one.
TEST_P(RocksStoreTest, AnEventDeletedInItsOwnBatchLeavesNoIndexEntry) {
  Event target = make_event(alice, 9, 100, {{"h", chan}, {"t", "x"}});
  Event del = make_event(alice, 5, 101, {{"e", hex(target)}, {"h", chan}});
  auto results = write_batch({{&target, chan}, {&del, chan}});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[1].removed, std::vector<Id>{target.id});
  std::string suffix;
  put_key_suffix(&suffix, target.created_at, target.id.data());
  for (Family f : {Family::kIndexTime, Family::kIndexKind, Family::kIndexAuthor, Family::kIndexAuthorKind,
                   Family::kIndexTag, Family::kIndexTagKind}) {
    std::unique_ptr<rocksdb::Iterator> it(db_->db()->NewIterator(rocksdb::ReadOptions(), db_->family(f)));
    size_t entries = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      EXPECT_FALSE(it->key().ToStringView().ends_with(suffix)) << "family " << int(f);
      ++entries;
    }
    EXPECT_GT(entries, 0u) << "family " << int(f) << ": the deletion's own entries";
  }
}

TEST_P(EventStoreTest, DuplicateIdIsReported) {
  Event e = make_event(alice, 1, 100);
  EXPECT_EQ(write(e).outcome, WriteOutcome::kStored);
  WriteResult again = write(e);
  EXPECT_EQ(again.outcome, WriteOutcome::kDuplicate);
  EXPECT_TRUE(again.removed.empty());
  EXPECT_EQ(query("{}").size(), 1u);
}

TEST_P(EventStoreTest, DuplicateWithinOneBatchIsReported) {
  Event e = make_event(alice, 1, 100);
  auto results = write_batch({{&e, ""}, {&e, ""}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, WriteOutcome::kStored);
  EXPECT_EQ(results[1].outcome, WriteOutcome::kDuplicate);
  EXPECT_EQ(query("{}").size(), 1u);
}

TEST_P(EventStoreTest, ContainsAndGet) {
  Event e = make_event(alice, 40002, 100, {{"h", chan}});
  EXPECT_FALSE(store_->contains(e.id, e.kind));
  EXPECT_FALSE(store_->get(e.id));
  ASSERT_EQ(write(e, chan).outcome, WriteOutcome::kStored);
  EXPECT_TRUE(store_->contains(e.id, e.kind));
  auto raw = store_->get(e.id);
  ASSERT_TRUE(raw);
  EXPECT_EQ(*raw, e.raw);
  Id unknown{};
  EXPECT_FALSE(store_->get(unknown));
}

TEST_P(EventStoreTest, EmptyStoreReturnsNothing) {
  EXPECT_TRUE(query("{}").empty());
  EXPECT_EQ(count({"{}"}), 0u);
}

// ---------------------------------------------------------------------------
// filter shapes

class StoreFilters : public EventStoreTest {
 protected:
  void SetUp() override {
    EventStoreTest::SetUp();
    a1 = make_event(alice, 1, 100, {{"t", "x"}});
    a2 = make_event(alice, 7, 200, {{"e", std::string(64, 'e')}, {"t", "y"}});
    a3 = make_event(alice, 9, 300, {{"h", chan}, {"t", "x"}, {"t", "y"}});
    b1 = make_event(bob, 1, 150, {{"p", to_hex(alice.pubkey)}});
    b2 = make_event(bob, 9, 250, {{"h", chan}, {"t", "z"}});
    c1 = make_event(carol, 40002, 300, {{"h", other}, {"T", "x"}});
    for (auto [e, ch] : std::vector<std::pair<Event*, std::string>>{
             {&a1, ""}, {&a2, ""}, {&a3, chan}, {&b1, ""}, {&b2, chan}, {&c1, other}}) {
      ASSERT_EQ(write(*e, ch).outcome, WriteOutcome::kStored);
    }
  }
  Event a1, a2, a3, b1, b2, c1;
};
BUZZ_ON_BOTH_STORES(StoreFilters);

TEST_P(StoreFilters, All) { EXPECT_EQ(query("{}"), newest_first({&a1, &a2, &a3, &b1, &b2, &c1})); }

TEST_P(StoreFilters, Ids) {
  EXPECT_EQ(query(R"({"ids":[")" + hex(a1) + R"(",")" + hex(b2) + R"("]})"), ids_of({&b2, &a1}));
  std::string unknown(64, '0');
  EXPECT_EQ(query(R"({"ids":[")" + unknown + R"(",")" + hex(c1) + R"("]})"), ids_of({&c1}));
  EXPECT_TRUE(query(R"({"ids":[]})").empty());
  // Other fields still apply to an ids lookup.
  EXPECT_TRUE(query(R"({"ids":[")" + hex(a1) + R"("],"kinds":[7]})").empty());
  EXPECT_TRUE(query(R"({"ids":[")" + hex(a1) + R"("],"since":101})").empty());
}

TEST_P(StoreFilters, Authors) {
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice}) + "}"), ids_of({&a3, &a2, &a1}));
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&bob, &carol}) + "}"), newest_first({&b1, &b2, &c1}));
  Keypair nobody = key(99);
  EXPECT_TRUE(query(R"({"authors":)" + authors_json({&nobody}) + "}").empty());
  EXPECT_TRUE(query(R"({"authors":[]})").empty());
}

TEST_P(StoreFilters, Kinds) {
  EXPECT_EQ(query(R"({"kinds":[1]})"), ids_of({&b1, &a1}));
  EXPECT_EQ(query(R"({"kinds":[9,40002]})"), newest_first({&a3, &b2, &c1}));
  EXPECT_TRUE(query(R"({"kinds":[3]})").empty());
  EXPECT_TRUE(query(R"({"kinds":[]})").empty());
}

TEST_P(StoreFilters, AuthorsAndKinds) {
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice, &bob}) + R"(,"kinds":[1]})"), ids_of({&b1, &a1}));
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice}) + R"(,"kinds":[7,9]})"), ids_of({&a3, &a2}));
  EXPECT_TRUE(query(R"({"authors":)" + authors_json({&carol}) + R"(,"kinds":[1]})").empty());
}

TEST_P(StoreFilters, Tags) {
  EXPECT_EQ(query(R"({"#t":["x"]})"), ids_of({&a3, &a1}));
  // a3 carries both values but is returned once.
  EXPECT_EQ(query(R"({"#t":["x","y"]})"), ids_of({&a3, &a2, &a1}));
  EXPECT_EQ(query(R"({"#t":["x","y","z"]})"), ids_of({&a3, &b2, &a2, &a1}));
  EXPECT_EQ(query(R"({"#T":["x"]})"), ids_of({&c1}));
  EXPECT_EQ(query(R"({"#p":[")" + to_hex(alice.pubkey) + R"("]})"), ids_of({&b1}));
  EXPECT_EQ(query(R"({"#e":[")" + std::string(64, 'e') + R"("]})"), ids_of({&a2}));
  EXPECT_EQ(query(R"({"#h":[")" + chan + R"("]})"), ids_of({&a3, &b2}));
  EXPECT_TRUE(query(R"({"#t":["nope"]})").empty());
  EXPECT_TRUE(query(R"({"#t":[]})").empty());
  // Tag plus other fields, and two tag filters.
  EXPECT_EQ(query(R"({"#t":["x","y"],"kinds":[7]})"), ids_of({&a2}));
  EXPECT_EQ(query(R"({"#t":["x","y"],"#h":[")" + chan + R"("]})"), ids_of({&a3}));
  EXPECT_EQ(query(R"({"#t":["x","y","z"],"authors":)" + authors_json({&bob}) + "}"), ids_of({&b2}));
}

TEST_P(StoreFilters, TimeRangeIsInclusive) {
  EXPECT_EQ(query(R"({"since":250})"), newest_first({&a3, &c1, &b2}));
  EXPECT_EQ(query(R"({"until":150})"), ids_of({&b1, &a1}));
  EXPECT_EQ(query(R"({"since":150,"until":250})"), ids_of({&b2, &a2, &b1}));
  EXPECT_EQ(query(R"({"since":200,"until":200})"), ids_of({&a2}));
  EXPECT_TRUE(query(R"({"since":201,"until":249})").empty());
  EXPECT_TRUE(query(R"({"since":300,"until":100})").empty());
  EXPECT_TRUE(query(R"({"since":301})").empty());
  EXPECT_EQ(query(R"({"kinds":[1],"since":100,"until":100})"), ids_of({&a1}));
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice}) + R"(,"until":299})"), ids_of({&a2, &a1}));
  EXPECT_EQ(query(R"({"#t":["x","y"],"since":200})"), ids_of({&a3, &a2}));
}

TEST_P(StoreFilters, LimitKeepsTheNewest) {
  std::vector<std::string> all = query("{}");
  EXPECT_EQ(query(R"({"limit":2})"), std::vector<std::string>(all.begin(), all.begin() + 2));
  EXPECT_TRUE(query(R"({"limit":0})").empty());
  EXPECT_EQ(query(R"({"limit":100})"), all);
  // The smaller of the filter's limit and the caller's cap wins.
  EXPECT_EQ(query(R"({"limit":5})", 3), std::vector<std::string>(all.begin(), all.begin() + 3));
  EXPECT_EQ(query("{}", 1), std::vector<std::string>(all.begin(), all.begin() + 1));
  EXPECT_EQ(query(R"({"kinds":[1],"limit":1})"), ids_of({&b1}));
  EXPECT_EQ(query(R"({"#t":["x","y"],"limit":2})"), ids_of({&a3, &a2}));
}

TEST_P(StoreFilters, AcceptGateRunsBeforeTheLimit) {
  QueryOptions options;
  options.limit = 2;
  options.accept = [](const EventFields& f) { return f.channel.empty(); };
  Filter all;
  EXPECT_EQ(query(all, options), ids_of({&a2, &b1}));
  QueryOptions count_options;
  count_options.accept = options.accept;
  EXPECT_EQ(count({"{}"}, count_options), 3u);
}

TEST_P(StoreFilters, SinkSeesDecodedFields) {
  Filter f = *parse_filter_json(R"({"kinds":[9]})");
  std::vector<std::string> channels;
  ASSERT_TRUE(store_->query(f, {}, [&](std::string_view, const EventFields& fields) {
    channels.emplace_back(fields.channel);
  }).ok());
  EXPECT_EQ(channels, (std::vector<std::string>{chan, chan}));
}

TEST_P(StoreFilters, CountIsDistinctAcrossFilters) {
  EXPECT_EQ(count({"{}"}), 6u);
  EXPECT_EQ(count({R"({"kinds":[1]})"}), 2u);
  EXPECT_EQ(count({R"({"kinds":[1]})", R"({"kinds":[1]})"}), 2u);
  EXPECT_EQ(count({R"({"kinds":[1]})", R"({"authors":)" + authors_json({&alice}) + "}"}), 4u);
  EXPECT_EQ(count({R"({"#t":["x"]})", R"({"#t":["y"]})", R"({"kinds":[40002]})"}), 4u);
  EXPECT_EQ(count({R"({"kinds":[]})"}), 0u);
  EXPECT_EQ(count({}), 0u);
}

TEST_P(StoreFilters, CountIgnoresLimit) {
  EXPECT_EQ(count({R"({"limit":1})"}), 6u);
}

// ---------------------------------------------------------------------------
// scan_kind

// Start-up loaders read every event of a kind, past the per-query cap.
TEST_P(EventStoreTest, ScanKindHasNoLimit) {
  std::vector<Event> events;
  for (uint64_t i = 0; i < kMaxQueryLimit + 20; ++i) events.push_back(make_event(key(1), 1, 1000 + i));
  std::vector<std::pair<const Event*, std::string>> batch;
  for (const Event& e : events) batch.emplace_back(&e, "");
  write_batch(batch);
  write(make_event(key(1), 7, 5000, {{"e", events[0].id_hex()}}));
  size_t seen = 0;
  uint64_t last = UINT64_MAX;
  Status s = store_->scan_kind(1, [&](std::string_view, const EventFields& f) {
    EXPECT_EQ(f.kind, 1);
    EXPECT_LE(f.created_at, last);  // newest first
    last = f.created_at;
    ++seen;
  });
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(seen, events.size());
}

// ---------------------------------------------------------------------------
// #h channel fallback (docs/reference/protocol.md §9.2): kinds 5 and 7 inherit their target's
// channel and carry no h tag; a #h filter must still find them in history.

TEST_P(EventStoreTest, HashHFindsChannelEventsWithoutAnHTag) {
  Event msg = make_event(alice, 9, 100, {{"h", chan}});
  Event reaction = make_event(bob, 7, 101, {{"e", hex(msg)}}, "+");
  ASSERT_EQ(write(msg, chan).outcome, WriteOutcome::kStored);
  ASSERT_EQ(write(reaction, chan).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query(R"({"#h":[")" + chan + R"("]})"), ids_of({&reaction, &msg}));
  EXPECT_EQ(query(R"({"#h":[")" + chan + R"("],"kinds":[7]})"), ids_of({&reaction}));
  EXPECT_EQ(count({R"({"#h":[")" + chan + R"("]})"}), 2u);
}

// ---------------------------------------------------------------------------
// durability

// A small history that exercises every kind of stored state: plain and
// channel events, a replaced replaceable (its pointer), a deleted event.
class StoredHistoryTest : public EventStoreTest {
 protected:
  struct History {
    Event a, b, r1, r2, gone, del;
  };
  void store_history() {
    h_.del = make_event(alice, 5, 300, {{"e", hex(h_.gone)}});
    for (Event* e : {&h_.a, &h_.r1, &h_.r2, &h_.gone}) ASSERT_NE(write(*e).outcome, WriteOutcome::kInvalid);
    ASSERT_EQ(write(h_.b, chan).outcome, WriteOutcome::kStored);
    ASSERT_EQ(write(h_.del).outcome, WriteOutcome::kStored);
    before_ = query("{}");
    ASSERT_EQ(before_, newest_first({&h_.del, &h_.r2, &h_.b, &h_.a}));
  }
  // After a reopen: history, lookups by id, pointers and seen ids as before.
  void expect_history_intact() {
    EXPECT_EQ(query("{}"), before_);
    EXPECT_EQ(query(R"({"#t":["x"]})"), ids_of({&h_.a}));
    EXPECT_EQ(query(R"({"#h":[")" + chan + R"("]})"), ids_of({&h_.b}));
    EXPECT_EQ(query(R"({"kinds":[1],"#t":["x"]})"), ids_of({&h_.a}));
    EXPECT_EQ(query(R"({"kinds":[7,9],"#h":[")" + chan + R"("]})"), ids_of({&h_.b}));
    EXPECT_TRUE(query(R"({"kinds":[1],"#t":["gone"]})").empty()) << "a deleted event's entries went with it";
    auto raw = store_->get(h_.b.id);
    ASSERT_TRUE(raw);
    EXPECT_EQ(*raw, h_.b.raw);
    EXPECT_FALSE(store_->get(h_.gone.id)) << "still deleted";
    EXPECT_EQ(write(h_.r1).outcome, WriteOutcome::kDuplicate);
    EXPECT_EQ(write(make_event(alice, 10002, 150)).outcome, WriteOutcome::kStale) << "the pointer still names r2";
    EXPECT_EQ(write(h_.gone).outcome, WriteOutcome::kDuplicate) << "a deleted event is never resurrected";
    EXPECT_EQ(count({"{}"}), 4u);
  }

  History h_{make_event(alice, 1, 100, {{"t", "x"}}), make_event(bob, 9, 200, {{"h", chan}}),
             make_event(alice, 10002, 100), make_event(alice, 10002, 200), make_event(alice, 1, 50, {{"t", "gone"}}), {}};
  std::vector<std::string> before_;
};
BUZZ_ON_BOTH_STORES(StoredHistoryTest);

class RocksStoredHistoryTest : public StoredHistoryTest {};
BUZZ_ON_ROCKSDB(RocksStoredHistoryTest);

TEST_P(StoredHistoryTest, DataSurvivesReopen) {
  store_history();
  reopen();
  expect_history_intact();
}

// A data directory of the first layout (records keyed by id, no event_ids)
// is moved to the time-ordered one when it is opened, with nothing lost.
TEST_P(RocksStoredHistoryTest, RecordsKeyedByIdAreMovedToTheTimeOrderedLayoutOnOpen) {
  store_history();
  // Rewrite the directory as the first layout wrote it: the index entries are
  // the same; records under their id; no event_ids; no layout or format marker.
  rocksdb::DB* raw = db_->db();
  rocksdb::ReadOptions all;
  all.total_order_seek = true;  // the memtables are hashed by key
  rocksdb::WriteBatch old_layout;
  size_t records = 0;
  for (int f = 0; f < kStorageFamilies; ++f) {
    std::unique_ptr<rocksdb::Iterator> it(raw->NewIterator(all, db_->events(StorageFamily(f))));
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++records) {
      ASSERT_EQ(it->key().size(), kKeySuffixBytes);
      ASSERT_TRUE(old_layout.Put(db_->events(StorageFamily(f)), it->key().ToString().substr(8), it->value()).ok());
      ASSERT_TRUE(old_layout.Delete(db_->events(StorageFamily(f)), it->key()).ok());
    }
  }
  {
    std::unique_ptr<rocksdb::Iterator> ids(raw->NewIterator(all, db_->family(Family::kEventIds)));
    for (ids->SeekToFirst(); ids->Valid(); ids->Next()) ASSERT_TRUE(old_layout.Delete(db_->family(Family::kEventIds), ids->key()).ok());
  }  // iterators end before the database closes
  ASSERT_TRUE(old_layout.Delete(db_->defaults(), "record_layout").ok());
  ASSERT_TRUE(old_layout.Delete(db_->defaults(), kDataFormatKey).ok());  // written before formats were recorded
  ASSERT_TRUE(old_layout.Delete(db_->defaults(), kDataFormatWriterKey).ok());
  ASSERT_TRUE(raw->Write(rocksdb::WriteOptions(), &old_layout).ok());
  ASSERT_EQ(records, 6u);
  EXPECT_FALSE(store_->get(h_.b.id)) << "the rewrite took the records out of reach";

  reopen();
  expect_history_intact();
  for (int f = 0; f < kStorageFamilies; ++f) {
    std::unique_ptr<rocksdb::Iterator> it(db_->db()->NewIterator(all, db_->events(StorageFamily(f))));
    for (it->SeekToFirst(); it->Valid(); it->Next()) EXPECT_EQ(it->key().size(), kKeySuffixBytes) << "every record moved";
  }
}

// A format-3 directory has no index.tag_kind: opening it builds the family
// from index.tag (engine/tag_kind_upgrade.h), and the filters that name kinds
// and a tag, which read it alone, find what they found before.
TEST_P(RocksStoredHistoryTest, TagsAreIndexedByKindWhenAFormat3DirectoryIsOpened) {
  store_history();
  auto entries = [&](Family f) {  // db_ itself: reopen() replaces the database
    std::vector<std::string> keys;
    std::unique_ptr<rocksdb::Iterator> it(db_->db()->NewIterator(rocksdb::ReadOptions(), db_->family(f)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) keys.push_back(it->key().ToString());
    return keys;
  };
  const std::vector<std::string> tag_kind = entries(Family::kIndexTagKind);
  ASSERT_EQ(tag_kind.size(), entries(Family::kIndexTag).size());
  ASSERT_EQ(tag_kind.size(), 3u) << "a's t, b's h, the deletion's e; the deleted event's t went with it";
  rocksdb::WriteBatch format3;
  for (const std::string& k : tag_kind) ASSERT_TRUE(format3.Delete(db_->family(Family::kIndexTagKind), k).ok());
  ASSERT_TRUE(format3.Put(db_->defaults(), kDataFormatKey, "3").ok());
  ASSERT_TRUE(db_->db()->Write(rocksdb::WriteOptions(), &format3).ok());
  EXPECT_TRUE(query(R"({"kinds":[1],"#t":["x"]})").empty()) << "the entries are gone";

  reopen();
  expect_history_intact();
  EXPECT_EQ(entries(Family::kIndexTagKind), tag_kind);
  std::string format;
  ASSERT_TRUE(db_->db()->Get(rocksdb::ReadOptions(), db_->defaults(), kDataFormatKey, &format).ok());
  EXPECT_EQ(format, std::to_string(kDataFormatVersion));
}

// A filter naming kinds and a tag reads the tag's entries of those kinds
// alone: here its one match lies beyond more entries of another kind than one
// query may pass over (100,000), which the tag index alone stopped short of.
TEST_P(RocksStoreTest, KindAndTagFindMatchesBehindAnyNumberOfOtherKinds) {
  Event old_note = make_event(alice, 1, 1'000, {{"t", "topic"}, {"t", "other"}});
  ASSERT_EQ(write(old_note).outcome, WriteOutcome::kStored);
  // Unsigned: the store does not verify, and signing 100,000 events would only slow the test.
  std::vector<Event> reactions(1000);
  for (int round = 0; round < 101; ++round) {
    std::vector<std::pair<const Event*, std::string>> batch;
    for (size_t i = 0; i < reactions.size(); ++i) {
      Event& e = reactions[i];
      e.kind = 7;
      e.created_at = 2'000 + uint64_t(round) * reactions.size() + i;
      e.pubkey = bob.pubkey;
      e.tags = {{"t", "topic"}};
      e.content = "+";
      e.id = compute_id(e);
      e.raw = serialize_event(e);
      batch.push_back({&e, ""});
    }
    write_batch(batch);
  }
  EXPECT_EQ(query(R"({"kinds":[1],"#t":["topic"],"limit":500})"), ids_of({&old_note}));
  EXPECT_EQ(query(R"({"kinds":[1,6],"#t":["topic","other"]})"), ids_of({&old_note}));
  EXPECT_EQ(query(R"({"kinds":[7],"#t":["topic"],"limit":2})").size(), 2u);
}

TEST_P(RocksStoreTest, SecondOpenOfTheSameDirectoryFails) {
  DatabaseOptions options;
  options.block_cache_bytes = 1 << 20;
  auto second = RocksDatabase::open(dir_ + "/db", options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().find("in use by another buzz process"), std::string::npos) << second.error();
}

}  // namespace
}  // namespace buzz::engine

namespace buzz::engine {
namespace {

// scan_all: the NIP-77 set — every match through the gate, no scan budget,
// the filter's limit honoured, and more than the cap an error, not a cut set.
class StoreScanAll : public EventStoreTest {
 protected:
  Result<std::vector<std::string>> scan(const std::string& filter_json, size_t max, const QueryOptions& options = {}) {
    auto f = parse_filter_json(filter_json);
    EXPECT_TRUE(f.ok()) << f.error();
    std::vector<std::string> ids;
    Status s = store_->scan_all(*f, options, max, [&](const EventFields& e) { ids.push_back(to_hex(e.id, 32)); });
    if (!s) return Error{s.error()};
    return ids;
  }
};
BUZZ_ON_BOTH_STORES(StoreScanAll);

class RocksScanAll : public StoreScanAll {};
BUZZ_ON_ROCKSDB(RocksScanAll);

TEST_P(StoreScanAll, ListsEveryMatchTheGateLetsThrough) {
  std::vector<Event> events;
  for (uint64_t i = 0; i < 700; ++i) events.push_back(make_event(key(1), 1, 1000 + i));  // over one query's 500
  for (const Event& e : events) write(e);
  const Event hidden = make_event(key(2), 9, 5000, {{"h", chan}});
  write(hidden, chan);

  auto all = scan("{}", 10'000);
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ(all->size(), 701u);
  EXPECT_EQ(std::count(all->begin(), all->end(), hex(hidden)), 1);  // no limit: the store's order

  QueryOptions gated;
  gated.accept = [](const EventFields& f) { return f.channel.empty(); };
  auto visible = scan("{}", 10'000, gated);
  ASSERT_TRUE(visible.ok());
  EXPECT_EQ(visible->size(), 700u);
  EXPECT_EQ(std::count(visible->begin(), visible->end(), hex(hidden)), 0);

  auto limited = scan("{\"limit\":3}", 10'000);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 3u);
  EXPECT_EQ(limited->front(), hex(hidden));  // a limit takes the newest
  auto bounded = scan("{\"since\":1100,\"until\":1199}", 10'000);
  ASSERT_TRUE(bounded.ok());
  EXPECT_EQ(bounded->size(), 100u);

  EXPECT_TRUE(scan("{}", 701).ok());  // exactly the cap is fine
  auto over = scan("{}", 700);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error(), "blocked: more than 700 events match, narrow the filter");
  // The gate runs before the cap: hidden events never count toward it.
  EXPECT_TRUE(scan("{}", 700, gated).ok());
}

// A filter of time bounds alone is read in storage order, any other by index:
// the same set either way, without deleted or replaced events.
TEST_P(StoreScanAll, StorageOrderAndIndexAgree) {
  Event a = make_event(alice, 1, 100), gone = make_event(alice, 1, 50);
  Event r1 = make_event(alice, 10002, 100), r2 = make_event(alice, 10002, 200);
  for (Event* e : {&a, &gone, &r1, &r2}) ASSERT_NE(write(*e).outcome, WriteOutcome::kInvalid);
  Event del = make_event(alice, 5, 300, {{"e", hex(gone)}});
  ASSERT_EQ(write(del).outcome, WriteOutcome::kStored);
  auto sorted = [](Result<std::vector<std::string>> r) {
    EXPECT_TRUE(r.ok());
    std::vector<std::string> v = r ? *r : std::vector<std::string>{};
    std::sort(v.begin(), v.end());
    return v;
  };
  std::vector<std::string> expected = {hex(a), hex(r2), hex(del)};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(sorted(scan("{}", 100)), expected);
  EXPECT_EQ(sorted(scan("{\"kinds\":[1,5,10002]}", 100)), expected);
  EXPECT_EQ(sorted(scan("{\"since\":100}", 100)), expected);
}

// scan_index_keys: (created_at, id) from one index, no record read; a filter
// an index cannot answer alone is left to the caller.
TEST_P(RocksScanAll, IndexKeysListTheFilter) {
  Event a = make_event(alice, 1, 100), b = make_event(bob, 1, 200), c = make_event(alice, 7, 300, {{"t", "x"}});
  for (Event* e : {&a, &b, &c}) ASSERT_EQ(write(*e).outcome, WriteOutcome::kStored);
  auto keys = [&](const std::string& json) {
    std::vector<std::pair<uint64_t, std::string>> out;
    auto r = rocks().scan_index_keys(*parse_filter_json(json), [&](uint64_t t, const Id& id) {
      out.emplace_back(t, to_hex(id));
    });
    EXPECT_TRUE(r.ok());
    std::sort(out.begin(), out.end());
    return r && *r ? std::optional(out) : std::nullopt;
  };
  using Keys = std::vector<std::pair<uint64_t, std::string>>;
  EXPECT_EQ(keys("{}"), (Keys{{100, hex(a)}, {200, hex(b)}, {300, hex(c)}}));
  EXPECT_EQ(keys("{\"kinds\":[1]}"), (Keys{{100, hex(a)}, {200, hex(b)}}));
  EXPECT_EQ(keys("{\"authors\":[\"" + to_hex(alice.pubkey) + "\"],\"until\":299}"), (Keys{{100, hex(a)}}));
  EXPECT_EQ(keys("{\"since\":150}"), (Keys{{200, hex(b)}, {300, hex(c)}}));
  EXPECT_EQ(keys("{\"#t\":[\"x\"]}"), std::nullopt);
}

}  // namespace
}  // namespace buzz::engine
