// Unit tests for engine/rocks_event_store (+ event_record, rocks_database) on a
// real RocksDB in a temp dir: insert and query order (created_at desc, id asc),
// duplicates, every filter shape and its index plan, limits and the accept
// gate, replaceable (rule A) and addressable (rule B) supersession with the
// lowest-id tie rule, NIP-09 deletion by e and a tag with its exact reasons,
// distinct COUNT, same-batch read-your-writes, durability across reopen, and
// the unbounded per-kind scan of start-up loaders.
// The differential test at the bottom replays ~2000 random events and ~200
// random filters (fixed seeds) and checks the indexed query path against a
// naive in-memory matcher built on Filter::matches, like strfry's dumbFilter.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/kinds.h"
#include "engine/rocks_database.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"

namespace buzz::engine {

// Readable gtest output for outcomes (found by argument-dependent lookup).
void PrintTo(WriteOutcome o, std::ostream* os) {
  static const char* const kNames[] = {"kStored", "kDuplicate", "kStale", "kInvalid"};
  *os << (size_t(o) < 4 ? kNames[size_t(o)] : "WriteOutcome(?)");
}

namespace {

Keypair key(uint8_t n) {
  SecretKey s{};
  s[0] = 0x42;
  s[31] = n;
  return *keypair_from_secret(s);
}

// Distinct content per event so that otherwise equal events get distinct ids.
Event make_event(const Keypair& k, uint16_t kind, uint64_t created_at, std::vector<Tag> tags = {},
                 std::string content = {}) {
  static int counter = 0;
  Event e;
  e.kind = kind;
  e.created_at = created_at;
  e.tags = std::move(tags);
  e.content = content.empty() ? "event " + std::to_string(++counter) : std::move(content);
  sign_event(k, &e);
  return e;
}

std::string hex(const Event& e) { return e.id_hex(); }

std::string make_temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "buzz_store_test_XXXXXX").string();
  char* dir = mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr);
  return tmpl;
}

class EventStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir();
    open();
  }
  void TearDown() override {
    close();
    std::filesystem::remove_all(dir_);
  }
  void open() {
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
  std::unique_ptr<RocksDatabase> db_;
  std::unique_ptr<RocksEventStore> store_;
  Keypair alice = key(1);
  Keypair bob = key(2);
  Keypair carol = key(3);
};

std::vector<std::string> ids_of(std::vector<const Event*> events) {
  std::vector<std::string> out;
  for (const Event* e : events) out.push_back(hex(*e));
  return out;
}

// Events sorted the way the store must return them.
std::vector<std::string> newest_first(std::vector<const Event*> events) {
  std::sort(events.begin(), events.end(), [](const Event* a, const Event* b) {
    if (a->created_at != b->created_at) return a->created_at > b->created_at;
    return a->id < b->id;
  });
  return ids_of(events);
}

std::string authors_json(std::initializer_list<const Keypair*> keys) {
  std::string out = "[";
  for (const Keypair* k : keys) out += (out.size() > 1 ? ",\"" : "\"") + to_hex(k->pubkey) + "\"";
  return out + "]";
}

// ---------------------------------------------------------------------------
// insert, order, duplicates

TEST_F(EventStoreTest, QueryReturnsNewestFirst) {
  Event a = make_event(alice, 1, 100), b = make_event(alice, 1, 300), c = make_event(alice, 1, 200);
  EXPECT_EQ(write(a).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(b).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(c).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query("{}"), ids_of({&b, &c, &a}));
}

TEST_F(EventStoreTest, TiesAreBrokenByLowestId) {
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

TEST_F(EventStoreTest, StoredValueRoundTripsThroughTheRecord) {
  Event e = make_event(alice, 9, 1234, {{"h", "chan"}, {"p", to_hex(bob.pubkey)}, {"imeta", "url x"}, {"t"}});
  ASSERT_EQ(write(e, "chan").outcome, WriteOutcome::kStored);
  Filter f;
  std::vector<EventFields> seen;
  std::string raw;
  ASSERT_TRUE(store_->query(f, {}, [&](std::string_view r, const EventFields& fields) {
    raw = std::string(r);
    EXPECT_EQ(std::memcmp(fields.id, e.id.data(), 32), 0);
    EXPECT_EQ(std::memcmp(fields.pubkey, e.pubkey.data(), 32), 0);
    EXPECT_EQ(fields.created_at, 1234u);
    EXPECT_EQ(fields.kind, 9);
    EXPECT_EQ(fields.channel, "chan");
    ASSERT_EQ(fields.tags.size(), 2u);
    EXPECT_EQ(fields.tags[0].name, 'h');
    EXPECT_EQ(fields.tags[0].value, "chan");
    EXPECT_EQ(fields.tags[1].name, 'p');
    EXPECT_EQ(fields.tags[1].value, to_hex(bob.pubkey));
    seen.push_back(fields);
  }).ok());
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(raw, e.raw);
}

TEST_F(EventStoreTest, RecordEncodingRoundTrips) {
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

TEST_F(EventStoreTest, KeySuffixSortsNewestFirstThenLowestId) {
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

TEST_F(EventStoreTest, DuplicateIdIsReported) {
  Event e = make_event(alice, 1, 100);
  EXPECT_EQ(write(e).outcome, WriteOutcome::kStored);
  WriteResult again = write(e);
  EXPECT_EQ(again.outcome, WriteOutcome::kDuplicate);
  EXPECT_TRUE(again.removed.empty());
  EXPECT_EQ(query("{}").size(), 1u);
}

TEST_F(EventStoreTest, DuplicateWithinOneBatchIsReported) {
  Event e = make_event(alice, 1, 100);
  auto results = write_batch({{&e, ""}, {&e, ""}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, WriteOutcome::kStored);
  EXPECT_EQ(results[1].outcome, WriteOutcome::kDuplicate);
  EXPECT_EQ(query("{}").size(), 1u);
}

TEST_F(EventStoreTest, ContainsAndGet) {
  Event e = make_event(alice, 40002, 100, {{"h", "c"}});
  EXPECT_FALSE(store_->contains(e.id, e.kind));
  EXPECT_FALSE(store_->get(e.id));
  ASSERT_EQ(write(e, "c").outcome, WriteOutcome::kStored);
  EXPECT_TRUE(store_->contains(e.id, e.kind));
  auto raw = store_->get(e.id);
  ASSERT_TRUE(raw);
  EXPECT_EQ(*raw, e.raw);
  Id unknown{};
  EXPECT_FALSE(store_->get(unknown));
}

TEST_F(EventStoreTest, EmptyStoreReturnsNothing) {
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
    a3 = make_event(alice, 9, 300, {{"h", "chan"}, {"t", "x"}, {"t", "y"}});
    b1 = make_event(bob, 1, 150, {{"p", to_hex(alice.pubkey)}});
    b2 = make_event(bob, 9, 250, {{"h", "chan"}, {"t", "z"}});
    c1 = make_event(carol, 40002, 300, {{"h", "other"}, {"T", "x"}});
    for (auto [e, ch] : std::vector<std::pair<Event*, std::string>>{
             {&a1, ""}, {&a2, ""}, {&a3, "chan"}, {&b1, ""}, {&b2, "chan"}, {&c1, "other"}}) {
      ASSERT_EQ(write(*e, ch).outcome, WriteOutcome::kStored);
    }
  }
  Event a1, a2, a3, b1, b2, c1;
};

TEST_F(StoreFilters, All) { EXPECT_EQ(query("{}"), newest_first({&a1, &a2, &a3, &b1, &b2, &c1})); }

TEST_F(StoreFilters, Ids) {
  EXPECT_EQ(query(R"({"ids":[")" + hex(a1) + R"(",")" + hex(b2) + R"("]})"), ids_of({&b2, &a1}));
  std::string unknown(64, '0');
  EXPECT_EQ(query(R"({"ids":[")" + unknown + R"(",")" + hex(c1) + R"("]})"), ids_of({&c1}));
  EXPECT_TRUE(query(R"({"ids":[]})").empty());
  // Other fields still apply to an ids lookup.
  EXPECT_TRUE(query(R"({"ids":[")" + hex(a1) + R"("],"kinds":[7]})").empty());
  EXPECT_TRUE(query(R"({"ids":[")" + hex(a1) + R"("],"since":101})").empty());
}

TEST_F(StoreFilters, Authors) {
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice}) + "}"), ids_of({&a3, &a2, &a1}));
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&bob, &carol}) + "}"), newest_first({&b1, &b2, &c1}));
  Keypair nobody = key(99);
  EXPECT_TRUE(query(R"({"authors":)" + authors_json({&nobody}) + "}").empty());
  EXPECT_TRUE(query(R"({"authors":[]})").empty());
}

TEST_F(StoreFilters, Kinds) {
  EXPECT_EQ(query(R"({"kinds":[1]})"), ids_of({&b1, &a1}));
  EXPECT_EQ(query(R"({"kinds":[9,40002]})"), newest_first({&a3, &b2, &c1}));
  EXPECT_TRUE(query(R"({"kinds":[3]})").empty());
  EXPECT_TRUE(query(R"({"kinds":[]})").empty());
}

TEST_F(StoreFilters, AuthorsAndKinds) {
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice, &bob}) + R"(,"kinds":[1]})"), ids_of({&b1, &a1}));
  EXPECT_EQ(query(R"({"authors":)" + authors_json({&alice}) + R"(,"kinds":[7,9]})"), ids_of({&a3, &a2}));
  EXPECT_TRUE(query(R"({"authors":)" + authors_json({&carol}) + R"(,"kinds":[1]})").empty());
}

TEST_F(StoreFilters, Tags) {
  EXPECT_EQ(query(R"({"#t":["x"]})"), ids_of({&a3, &a1}));
  // a3 carries both values but is returned once.
  EXPECT_EQ(query(R"({"#t":["x","y"]})"), ids_of({&a3, &a2, &a1}));
  EXPECT_EQ(query(R"({"#t":["x","y","z"]})"), ids_of({&a3, &b2, &a2, &a1}));
  EXPECT_EQ(query(R"({"#T":["x"]})"), ids_of({&c1}));
  EXPECT_EQ(query(R"({"#p":[")" + to_hex(alice.pubkey) + R"("]})"), ids_of({&b1}));
  EXPECT_EQ(query(R"({"#e":[")" + std::string(64, 'e') + R"("]})"), ids_of({&a2}));
  EXPECT_EQ(query(R"({"#h":["chan"]})"), ids_of({&a3, &b2}));
  EXPECT_TRUE(query(R"({"#t":["nope"]})").empty());
  EXPECT_TRUE(query(R"({"#t":[]})").empty());
  // Tag plus other fields, and two tag filters.
  EXPECT_EQ(query(R"({"#t":["x","y"],"kinds":[7]})"), ids_of({&a2}));
  EXPECT_EQ(query(R"({"#t":["x","y"],"#h":["chan"]})"), ids_of({&a3}));
  EXPECT_EQ(query(R"({"#t":["x","y","z"],"authors":)" + authors_json({&bob}) + "}"), ids_of({&b2}));
}

TEST_F(StoreFilters, TimeRangeIsInclusive) {
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

TEST_F(StoreFilters, LimitKeepsTheNewest) {
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

TEST_F(StoreFilters, AcceptGateRunsBeforeTheLimit) {
  QueryOptions options;
  options.limit = 2;
  options.accept = [](const EventFields& f) { return f.channel.empty(); };
  Filter all;
  EXPECT_EQ(query(all, options), ids_of({&a2, &b1}));
  QueryOptions count_options;
  count_options.accept = options.accept;
  EXPECT_EQ(count({"{}"}, count_options), 3u);
}

TEST_F(StoreFilters, SinkSeesDecodedFields) {
  Filter f = *parse_filter_json(R"({"kinds":[9]})");
  std::vector<std::string> channels;
  ASSERT_TRUE(store_->query(f, {}, [&](std::string_view, const EventFields& fields) {
    channels.emplace_back(fields.channel);
  }).ok());
  EXPECT_EQ(channels, (std::vector<std::string>{"chan", "chan"}));
}

TEST_F(StoreFilters, CountIsDistinctAcrossFilters) {
  EXPECT_EQ(count({"{}"}), 6u);
  EXPECT_EQ(count({R"({"kinds":[1]})"}), 2u);
  EXPECT_EQ(count({R"({"kinds":[1]})", R"({"kinds":[1]})"}), 2u);
  EXPECT_EQ(count({R"({"kinds":[1]})", R"({"authors":)" + authors_json({&alice}) + "}"}), 4u);
  EXPECT_EQ(count({R"({"#t":["x"]})", R"({"#t":["y"]})", R"({"kinds":[40002]})"}), 4u);
  EXPECT_EQ(count({R"({"kinds":[]})"}), 0u);
  EXPECT_EQ(count({}), 0u);
}

TEST_F(StoreFilters, CountIgnoresLimit) {
  EXPECT_EQ(count({R"({"limit":1})"}), 6u);
}

// ---------------------------------------------------------------------------
// replaceable events (protocol.md §10 rule A)

// Start-up loaders read every event of a kind, past the per-query cap.
TEST_F(EventStoreTest, ScanKindHasNoLimit) {
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

TEST_F(EventStoreTest, NewerReplaceableReplacesOlder) {
  Event old_e = make_event(alice, 10002, 100, {{"r", "wss://a"}});
  Event new_e = make_event(alice, 10002, 200, {{"r", "wss://b"}});
  ASSERT_EQ(write(old_e).outcome, WriteOutcome::kStored);
  WriteResult r = write(new_e);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  ASSERT_EQ(r.removed.size(), 1u);
  EXPECT_EQ(r.removed[0], old_e.id);
  EXPECT_EQ(query(R"({"kinds":[10002]})"), ids_of({&new_e}));
  EXPECT_EQ(query("{}"), ids_of({&new_e}));
  EXPECT_EQ(query(R"({"ids":[")" + hex(old_e) + R"("]})"), std::vector<std::string>{});
  EXPECT_EQ(query(R"({"#r":["wss://a"]})"), std::vector<std::string>{});
  EXPECT_FALSE(store_->get(old_e.id));
  EXPECT_TRUE(store_->get(new_e.id));
  // A superseded id still counts as seen.
  EXPECT_TRUE(store_->contains(old_e.id, old_e.kind));
  EXPECT_EQ(write(old_e).outcome, WriteOutcome::kDuplicate);
  EXPECT_EQ(count({"{}"}), 1u);
}

TEST_F(EventStoreTest, OlderReplaceableIsStale) {
  Event new_e = make_event(alice, 0, 200, {}, "{\"name\":\"new\"}");
  Event old_e = make_event(alice, 0, 100, {}, "{\"name\":\"old\"}");
  ASSERT_EQ(write(new_e).outcome, WriteOutcome::kStored);
  WriteResult r = write(old_e);
  EXPECT_EQ(r.outcome, WriteOutcome::kStale);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(query(R"({"kinds":[0]})"), ids_of({&new_e}));
  EXPECT_FALSE(store_->get(old_e.id));
}

TEST_F(EventStoreTest, ReplaceableTieGoesToLowestIdInEitherOrder) {
  Event x = make_event(alice, 3, 500), y = make_event(alice, 3, 500);
  const Event& low = x.id < y.id ? x : y;
  const Event& high = x.id < y.id ? y : x;
  // High first: the low id replaces it.
  ASSERT_EQ(write(high).outcome, WriteOutcome::kStored);
  WriteResult r = write(low);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  ASSERT_EQ(r.removed.size(), 1u);
  EXPECT_EQ(r.removed[0], high.id);
  EXPECT_EQ(query(R"({"kinds":[3]})"), ids_of({&low}));

  // Low first (another author): the high id is stale.
  Event p = make_event(bob, 3, 500), q = make_event(bob, 3, 500);
  const Event& low2 = p.id < q.id ? p : q;
  const Event& high2 = p.id < q.id ? q : p;
  ASSERT_EQ(write(low2).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(high2).outcome, WriteOutcome::kStale);
  EXPECT_EQ(query(R"({"kinds":[3],"authors":)" + authors_json({&bob}) + "}"), ids_of({&low2}));
}

TEST_F(EventStoreTest, ReplaceableKeyIsKindPubkeyAndChannel) {
  Event a = make_event(alice, 10000, 100);
  Event other_kind = make_event(alice, 10001, 100);
  Event other_author = make_event(bob, 10000, 100);
  Event in_channel = make_event(alice, 10000, 100);
  ASSERT_EQ(write(a).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(other_kind).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(other_author).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(in_channel, "chan").outcome, WriteOutcome::kStored);
  EXPECT_EQ(query("{}").size(), 4u);
  // Newer in the channel replaces only the channel's copy.
  Event in_channel2 = make_event(alice, 10000, 101);
  WriteResult r = write(in_channel2, "chan");
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  ASSERT_EQ(r.removed.size(), 1u);
  EXPECT_EQ(r.removed[0], in_channel.id);
  EXPECT_EQ(query(R"({"kinds":[10000],"authors":)" + authors_json({&alice}) + "}"), ids_of({&in_channel2, &a}));
}

TEST_F(EventStoreTest, ReplaceableChainInOneBatch) {
  Event v1 = make_event(alice, 10003, 100), v2 = make_event(alice, 10003, 200), v0 = make_event(alice, 10003, 50);
  auto results = write_batch({{&v1, ""}, {&v2, ""}, {&v0, ""}});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].outcome, WriteOutcome::kStored);
  EXPECT_EQ(results[1].outcome, WriteOutcome::kStored);
  ASSERT_EQ(results[1].removed.size(), 1u);
  EXPECT_EQ(results[1].removed[0], v1.id);
  EXPECT_EQ(results[2].outcome, WriteOutcome::kStale);
  EXPECT_EQ(query(R"({"kinds":[10003]})"), ids_of({&v2}));
}

TEST_F(EventStoreTest, Kind41IsReplaceable) {
  Event v1 = make_event(alice, 41, 100), v2 = make_event(alice, 41, 200);
  ASSERT_EQ(write(v1).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(v2).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query(R"({"kinds":[41]})"), ids_of({&v2}));
}

// ---------------------------------------------------------------------------
// addressable events (rule B)

TEST_F(EventStoreTest, AddressableIsKeyedByDTag) {
  Event a1 = make_event(alice, 30023, 100, {{"d", "a"}});
  Event b1 = make_event(alice, 30023, 100, {{"d", "b"}});
  Event a2 = make_event(alice, 30023, 200, {{"d", "a"}});
  Event a0 = make_event(alice, 30023, 50, {{"d", "a"}});
  ASSERT_EQ(write(a1).outcome, WriteOutcome::kStored);
  ASSERT_EQ(write(b1).outcome, WriteOutcome::kStored);
  WriteResult r = write(a2);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  ASSERT_EQ(r.removed.size(), 1u);
  EXPECT_EQ(r.removed[0], a1.id);
  EXPECT_EQ(write(a0).outcome, WriteOutcome::kStale);
  EXPECT_EQ(query(R"({"kinds":[30023]})"), ids_of({&a2, &b1}));
  EXPECT_EQ(query(R"({"#d":["a"]})"), ids_of({&a2}));
}

TEST_F(EventStoreTest, AddressableTieGoesToLowestId) {
  Event x = make_event(alice, 30000, 500, {{"d", "k"}}), y = make_event(alice, 30000, 500, {{"d", "k"}});
  const Event& low = x.id < y.id ? x : y;
  const Event& high = x.id < y.id ? y : x;
  ASSERT_EQ(write(high).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(low).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query(R"({"kinds":[30000]})"), ids_of({&low}));
  Event later_high = make_event(alice, 30000, 500, {{"d", "k"}});
  if (later_high.id > low.id) {
    EXPECT_EQ(write(later_high).outcome, WriteOutcome::kStale);
  }
}

TEST_F(EventStoreTest, MissingDTagIsTheEmptyD) {
  Event no_d = make_event(alice, 30078, 100);
  Event empty_d = make_event(alice, 30078, 200, {{"d", ""}});
  Event bare_d = make_event(alice, 30078, 300, {{"d"}});  // a d tag without value counts as no d
  ASSERT_EQ(write(no_d).outcome, WriteOutcome::kStored);
  WriteResult r = write(empty_d);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_EQ(r.removed, std::vector<Id>{no_d.id});
  r = write(bare_d);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_EQ(r.removed, std::vector<Id>{empty_d.id});
  EXPECT_EQ(query(R"({"kinds":[30078]})"), ids_of({&bare_d}));
}

TEST_F(EventStoreTest, AddressableUsesTheFirstDTag) {
  Event v1 = make_event(alice, 30003, 100, {{"d", "one"}, {"d", "two"}});
  Event v2 = make_event(alice, 30003, 200, {{"d", "one"}});
  Event other = make_event(alice, 30003, 300, {{"d", "two"}});
  ASSERT_EQ(write(v1).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(v2).removed, std::vector<Id>{v1.id});
  EXPECT_TRUE(write(other).removed.empty());
}

TEST_F(EventStoreTest, AddressableKeyIgnoresChannel) {
  Event v1 = make_event(alice, 30315, 100, {{"d", "general"}});
  Event v2 = make_event(alice, 30315, 200, {{"d", "general"}});
  ASSERT_EQ(write(v1, "chan-1").outcome, WriteOutcome::kStored);
  WriteResult r = write(v2, "chan-2");
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_EQ(r.removed, std::vector<Id>{v1.id});
  EXPECT_EQ(query(R"({"kinds":[30315]})"), ids_of({&v2}));
}

TEST_F(EventStoreTest, DTagLimitIs1024Bytes) {
  Event ok = make_event(alice, 30023, 100, {{"d", std::string(1024, 'd')}});
  EXPECT_EQ(write(ok).outcome, WriteOutcome::kStored);
  Event too_long = make_event(alice, 30023, 100, {{"d", std::string(1025, 'd')}});
  WriteResult r = write(too_long);
  EXPECT_EQ(r.outcome, WriteOutcome::kInvalid);
  EXPECT_EQ(r.reason, "invalid: d tag too long (1025 bytes, max 1024)");
  EXPECT_FALSE(store_->contains(too_long.id, too_long.kind));
  EXPECT_EQ(query("{}"), ids_of({&ok}));
  // Multi-byte characters count as bytes.
  std::string d;
  for (int i = 0; i < 342; ++i) d += "é";  // 684 bytes: fine
  EXPECT_EQ(write(make_event(alice, 30023, 1, {{"d", d}})).outcome, WriteOutcome::kStored);
  for (int i = 0; i < 171; ++i) d += "é";  // 1026 bytes
  EXPECT_EQ(write(make_event(alice, 30023, 1, {{"d", d}})).reason, "invalid: d tag too long (1026 bytes, max 1024)");
}

TEST_F(EventStoreTest, GroupStateKindsUseRuleA) {
  // 39000–39002: keyed by channel, so one relay key's groups do not replace each other.
  Event g1 = make_event(alice, 39000, 100, {{"d", "g1"}});
  Event g2 = make_event(alice, 39000, 100, {{"d", "g2"}});
  ASSERT_EQ(write(g1, "g1").outcome, WriteOutcome::kStored);
  ASSERT_EQ(write(g2, "g2").outcome, WriteOutcome::kStored);
  Event g1b = make_event(alice, 39000, 101, {{"d", "g1"}});
  EXPECT_EQ(write(g1b, "g1").removed, std::vector<Id>{g1.id});
  EXPECT_EQ(query(R"({"kinds":[39000]})"), ids_of({&g1b, &g2}));
}

// ---------------------------------------------------------------------------
// deletion (protocol.md §11)

TEST_F(EventStoreTest, AuthorDeletesByETag) {
  Event target = make_event(alice, 1, 100);
  Event keep = make_event(alice, 1, 101);
  ASSERT_EQ(write(target).outcome, WriteOutcome::kStored);
  ASSERT_EQ(write(keep).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 200, {{"e", hex(target)}}, "spam");
  WriteResult r = write(del);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_EQ(r.removed, std::vector<Id>{target.id});
  EXPECT_EQ(query("{}"), ids_of({&del, &keep}));
  EXPECT_EQ(query(R"({"kinds":[5]})"), ids_of({&del}));
  EXPECT_EQ(query(R"({"#e":[")" + hex(target) + R"("]})"), ids_of({&del}));
  EXPECT_FALSE(store_->get(target.id));
  EXPECT_TRUE(store_->contains(target.id, target.kind));
  // A deleted id can never come back.
  EXPECT_EQ(write(target).outcome, WriteOutcome::kDuplicate);
  EXPECT_EQ(query(R"({"ids":[")" + hex(target) + R"("]})"), std::vector<std::string>{});
  EXPECT_EQ(count({"{}"}), 2u);
}

TEST_F(EventStoreTest, DeletionByAnotherAuthorIsRefused) {
  Event target = make_event(alice, 1, 100);
  ASSERT_EQ(write(target).outcome, WriteOutcome::kStored);
  Event del = make_event(bob, 5, 200, {{"e", hex(target)}});
  WriteResult r = write(del);
  EXPECT_EQ(r.outcome, WriteOutcome::kInvalid);
  EXPECT_EQ(r.reason, "invalid: must be event author");
  EXPECT_TRUE(r.removed.empty());
  EXPECT_FALSE(store_->contains(del.id, del.kind));
  EXPECT_EQ(query("{}"), ids_of({&target}));
}

TEST_F(EventStoreTest, DeletionOfUnknownTargetIsRefused) {
  Event del = make_event(alice, 5, 200, {{"e", std::string(64, 'a')}});
  WriteResult r = write(del);
  EXPECT_EQ(r.outcome, WriteOutcome::kInvalid);
  EXPECT_EQ(r.reason, "invalid: target event not found");
  Event bad_hex = make_event(alice, 5, 200, {{"e", "not-an-id"}});
  EXPECT_EQ(write(bad_hex).reason, "invalid: target event not found");
  EXPECT_TRUE(query("{}").empty());
}

TEST_F(EventStoreTest, DeletionNeedsExactlyOneTarget) {
  Event t1 = make_event(alice, 1, 100), t2 = make_event(alice, 1, 101);
  ASSERT_EQ(write(t1).outcome, WriteOutcome::kStored);
  ASSERT_EQ(write(t2).outcome, WriteOutcome::kStored);
  std::string coord = "30023:" + to_hex(alice.pubkey) + ":x";
  struct Case {
    std::vector<Tag> tags;
    std::string reason;
  };
  const std::string prefix = "invalid: deletion events must reference exactly one target via e or a tag ";
  for (const Case& c : std::vector<Case>{
           {{{"e", hex(t1)}, {"e", hex(t2)}}, prefix + "(got e=2, a=0)"},
           {{{"e", hex(t1)}, {"a", coord}}, prefix + "(got e=1, a=1)"},
           {{{"a", coord}, {"a", coord}}, prefix + "(got e=0, a=2)"},
           {{}, prefix + "(got e=0, a=0)"},
           {{{"p", to_hex(alice.pubkey)}}, prefix + "(got e=0, a=0)"},
       }) {
    Event del = make_event(alice, 5, 200, c.tags);
    WriteResult r = write(del);
    EXPECT_EQ(r.outcome, WriteOutcome::kInvalid);
    EXPECT_EQ(r.reason, c.reason);
    EXPECT_FALSE(store_->contains(del.id, 5));
  }
  EXPECT_EQ(query("{}"), ids_of({&t2, &t1}));
}

TEST_F(EventStoreTest, DeletingAnAlreadyDeletedTargetIsStoredButChangesNothing) {
  Event target = make_event(alice, 1, 100);
  ASSERT_EQ(write(target).outcome, WriteOutcome::kStored);
  Event del1 = make_event(alice, 5, 200, {{"e", hex(target)}});
  Event del2 = make_event(alice, 5, 201, {{"e", hex(target)}});
  ASSERT_EQ(write(del1).removed, std::vector<Id>{target.id});
  WriteResult r = write(del2);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(query("{}"), ids_of({&del2, &del1}));
  // Still author-checked against the deleted target.
  Event foreign = make_event(bob, 5, 202, {{"e", hex(target)}});
  EXPECT_EQ(write(foreign).reason, "invalid: must be event author");
}

TEST_F(EventStoreTest, DeletionInTheSameBatchAsItsTarget) {
  Event target = make_event(alice, 9, 100, {{"h", "c"}});
  Event del = make_event(alice, 5, 101, {{"e", hex(target)}, {"h", "c"}});
  auto results = write_batch({{&target, "c"}, {&del, "c"}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, WriteOutcome::kStored);
  EXPECT_EQ(results[1].outcome, WriteOutcome::kStored);
  EXPECT_EQ(results[1].removed, std::vector<Id>{target.id});
  EXPECT_EQ(query("{}"), ids_of({&del}));
  EXPECT_EQ(query(R"({"#h":["c"]})"), ids_of({&del}));
}

TEST_F(EventStoreTest, DeletionReachesEveryStorageFamily) {
  Event regular = make_event(alice, 40002, 100, {{"h", "c"}});
  Event replaceable = make_event(alice, 10002, 100);
  Event addressable = make_event(alice, 30023, 100, {{"d", "x"}});
  for (Event* e : {&regular, &replaceable, &addressable}) {
    ASSERT_EQ(write(*e).outcome, WriteOutcome::kStored);
    Event del = make_event(alice, 5, 200, {{"e", hex(*e)}});
    EXPECT_EQ(write(del).removed, std::vector<Id>{e->id}) << e->kind;
    EXPECT_FALSE(store_->get(e->id)) << e->kind;
  }
  EXPECT_EQ(query(R"({"kinds":[40002,10002,30023]})"), std::vector<std::string>{});
}

TEST_F(EventStoreTest, ATagDeletesTheAddressableVersion) {
  Event slug = make_event(alice, 30023, 100, {{"d", "slug"}});
  Event other = make_event(alice, 30023, 100, {{"d", "other"}});
  Event colon = make_event(alice, 30023, 100, {{"d", "a:b"}});
  for (Event* e : {&slug, &other, &colon}) ASSERT_EQ(write(*e).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 200, {{"a", "30023:" + to_hex(alice.pubkey) + ":slug"}});
  WriteResult r = write(del);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_EQ(r.removed, std::vector<Id>{slug.id});
  // d may itself contain ':'.
  Event del_colon = make_event(alice, 5, 201, {{"a", "30023:" + to_hex(alice.pubkey) + ":a:b"}});
  EXPECT_EQ(write(del_colon).removed, std::vector<Id>{colon.id});
  EXPECT_EQ(query(R"({"kinds":[30023]})"), ids_of({&other}));
  // Nothing live under the coordinate any more: stored, no effect.
  Event again = make_event(alice, 5, 202, {{"a", "30023:" + to_hex(alice.pubkey) + ":slug"}});
  r = write(again);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_TRUE(r.removed.empty());
}

TEST_F(EventStoreTest, ATagDeletionChecksAuthorAndFormat) {
  Event slug = make_event(alice, 30023, 100, {{"d", "slug"}});
  ASSERT_EQ(write(slug).outcome, WriteOutcome::kStored);
  std::string alice_hex = to_hex(alice.pubkey);
  struct Case {
    std::string coord;
    std::string reason;
  };
  for (const Case& c : std::vector<Case>{
           {"30023:" + alice_hex + ":slug", "invalid: must be event author"},  // signed by bob below
           {"nonsense", "invalid: invalid a-tag format"},
           {"30023:" + alice_hex, "invalid: invalid a-tag format"},
           {":" + alice_hex + ":slug", "invalid: invalid a-tag format"},
           {"3x023:" + alice_hex + ":slug", "invalid: invalid a-tag format"},
           {"70000:" + alice_hex + ":slug", "invalid: invalid a-tag format"},
           {"30023:zz:slug", "invalid: invalid pubkey in a-tag"},
       }) {
    Event del = make_event(bob, 5, 200, {{"a", c.coord}});
    WriteResult r = write(del);
    EXPECT_EQ(r.outcome, WriteOutcome::kInvalid) << c.coord;
    EXPECT_EQ(r.reason, c.reason) << c.coord;
  }
  EXPECT_EQ(query(R"({"kinds":[30023]})"), ids_of({&slug}));
}

TEST_F(EventStoreTest, ATagForANonAddressableKindHasNoEffect) {
  Event profile = make_event(alice, 10002, 100);
  ASSERT_EQ(write(profile).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 200, {{"a", "10002:" + to_hex(alice.pubkey) + ":"}});
  WriteResult r = write(del);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(query(R"({"kinds":[10002]})"), ids_of({&profile}));
}

TEST_F(EventStoreTest, AddressableCanBeRepublishedAfterATagDeletion) {
  Event v1 = make_event(alice, 30023, 100, {{"d", "slug"}});
  ASSERT_EQ(write(v1).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 200, {{"a", "30023:" + to_hex(alice.pubkey) + ":slug"}});
  ASSERT_EQ(write(del).removed, std::vector<Id>{v1.id});
  Event v2 = make_event(alice, 30023, 300, {{"d", "slug"}});
  EXPECT_EQ(write(v2).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query(R"({"kinds":[30023]})"), ids_of({&v2}));
}

// Rule A/B compare against the *live* row of the key (protocol.md §10: "if a
// live row with this key exists and ..."). Once the live version is deleted,
// there is none, so any version is stored again.
TEST_F(EventStoreTest, OlderReplaceableIsStoredAfterTheLiveVersionWasDeleted) {
  Event v2 = make_event(alice, 10002, 200);
  ASSERT_EQ(write(v2).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 300, {{"e", hex(v2)}});
  ASSERT_EQ(write(del).removed, std::vector<Id>{v2.id});
  Event v1 = make_event(alice, 10002, 100);
  WriteResult r = write(v1);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(query(R"({"kinds":[10002]})"), ids_of({&v1}));
}

TEST_F(EventStoreTest, OlderAddressableIsStoredAfterTheLiveVersionWasDeleted) {
  Event v2 = make_event(alice, 30023, 200, {{"d", "slug"}});
  ASSERT_EQ(write(v2).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 300, {{"a", "30023:" + to_hex(alice.pubkey) + ":slug"}});
  ASSERT_EQ(write(del).removed, std::vector<Id>{v2.id});
  Event v1 = make_event(alice, 30023, 100, {{"d", "slug"}});
  WriteResult r = write(v1);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(query(R"({"kinds":[30023]})"), ids_of({&v1}));
}

// ---------------------------------------------------------------------------
// #h channel fallback (protocol.md §9.2): kinds 5 and 7 inherit their target's
// channel and carry no h tag; a #h filter must still find them in history.

TEST_F(EventStoreTest, HashHFindsChannelEventsWithoutAnHTag) {
  Event msg = make_event(alice, 9, 100, {{"h", "chan"}});
  Event reaction = make_event(bob, 7, 101, {{"e", hex(msg)}}, "+");
  ASSERT_EQ(write(msg, "chan").outcome, WriteOutcome::kStored);
  ASSERT_EQ(write(reaction, "chan").outcome, WriteOutcome::kStored);
  EXPECT_EQ(query(R"({"#h":["chan"]})"), ids_of({&reaction, &msg}));
  EXPECT_EQ(query(R"({"#h":["chan"],"kinds":[7]})"), ids_of({&reaction}));
  EXPECT_EQ(count({R"({"#h":["chan"]})"}), 2u);
}

// ---------------------------------------------------------------------------
// durability

TEST_F(EventStoreTest, DataSurvivesReopen) {
  Event a = make_event(alice, 1, 100, {{"t", "x"}});
  Event b = make_event(bob, 9, 200, {{"h", "c"}});
  Event r1 = make_event(alice, 10002, 100), r2 = make_event(alice, 10002, 200);
  Event gone = make_event(alice, 1, 50);
  for (Event* e : {&a, &r1, &r2, &gone}) ASSERT_NE(write(*e).outcome, WriteOutcome::kInvalid);
  ASSERT_EQ(write(b, "c").outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 300, {{"e", hex(gone)}});
  ASSERT_EQ(write(del).outcome, WriteOutcome::kStored);
  std::vector<std::string> before = query("{}");
  ASSERT_EQ(before, newest_first({&del, &r2, &b, &a}));

  reopen();
  EXPECT_EQ(query("{}"), before);
  EXPECT_EQ(query(R"({"#t":["x"]})"), ids_of({&a}));
  EXPECT_EQ(query(R"({"#h":["c"]})"), ids_of({&b}));
  auto raw = store_->get(b.id);
  ASSERT_TRUE(raw);
  EXPECT_EQ(*raw, b.raw);
  EXPECT_FALSE(store_->get(gone.id));
  // Pointers and seen ids persist too.
  EXPECT_EQ(write(r1).outcome, WriteOutcome::kDuplicate);
  EXPECT_EQ(write(make_event(alice, 10002, 150)).outcome, WriteOutcome::kStale);
  EXPECT_EQ(write(gone).outcome, WriteOutcome::kDuplicate);
  EXPECT_EQ(count({"{}"}), 4u);
}

TEST_F(EventStoreTest, SecondOpenOfTheSameDirectoryFails) {
  DatabaseOptions options;
  options.block_cache_bytes = 1 << 20;
  auto second = RocksDatabase::open(dir_ + "/db", options);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().find("in use by another buzz process"), std::string::npos) << second.error();
}

// ---------------------------------------------------------------------------
// differential test: indexed store vs naive matcher

struct DiffParams {
  uint64_t seed;
  bool inherited_channels;  // kinds 5/7 take their target's channel without an h tag
};

void PrintTo(const DiffParams& p, std::ostream* os) {
  *os << "seed " << p.seed << (p.inherited_channels ? ", inherited channels" : "");
}

class StoreDifferential : public EventStoreTest, public ::testing::WithParamInterface<DiffParams> {};

// The naive model: what must be live after the writes, derived from the rules
// of protocol.md §10–11 without the store's indexes.
struct Model {
  struct Entry {
    Event event;
    std::string channel;
  };
  std::vector<Entry> stored;               // every accepted event
  std::map<Id, size_t> by_id;              // index into stored
  std::set<Id> dead;                       // superseded or deleted
  std::map<std::string, Id> pointer;       // replaceable/addressable winners

  static std::string pointer_key(const Event& e, const std::string& channel) {
    std::string k = std::to_string(e.kind) + "|" + e.pubkey_hex() + "|";
    bool rule_a = kind_class(e.kind) == KindClass::kReplaceable || (e.kind >= 39000 && e.kind <= 39002);
    return k + (rule_a ? channel : std::string(e.first_tag_value("d")));
  }

  // Applies one write and returns the outcome the store must report.
  WriteOutcome apply(const Event& e, const std::string& channel, std::vector<Id>* removed) {
    if (by_id.count(e.id)) return WriteOutcome::kDuplicate;
    if (e.kind == 5) {
      Id target;
      EXPECT_TRUE(from_hex(e.first_tag_value("e"), &target));
      EXPECT_TRUE(by_id.count(target));
      if (dead.insert(target).second) removed->push_back(target);
    }
    KindClass cls = kind_class(e.kind);
    if (cls == KindClass::kReplaceable || cls == KindClass::kAddressable) {
      std::string key = pointer_key(e, channel);
      auto it = pointer.find(key);
      if (it != pointer.end()) {
        const Event& cur = stored[by_id[it->second]].event;
        if (e.created_at < cur.created_at || (e.created_at == cur.created_at && e.id >= cur.id)) {
          return WriteOutcome::kStale;
        }
        dead.insert(cur.id);
        removed->push_back(cur.id);
      }
      pointer[key] = e.id;
    }
    by_id[e.id] = stored.size();
    stored.push_back({e, channel});
    return WriteOutcome::kStored;
  }

  std::vector<std::string> query(const Filter& f, size_t cap, uint64_t* total) const {
    std::vector<const Event*> hits;
    for (const Entry& s : stored) {
      if (dead.count(s.event.id)) continue;
      EventFields fields;
      fields.assign(s.event, s.channel);
      if (f.matches(fields)) hits.push_back(&s.event);
    }
    *total = hits.size();
    std::vector<std::string> out = newest_first(hits);
    size_t limit = std::min<size_t>(cap, f.limit.value_or(cap));
    if (out.size() > limit) out.resize(limit);
    return out;
  }
};

TEST_P(StoreDifferential, IndexedQueriesMatchTheNaiveMatcher) {
  const DiffParams params = GetParam();
  std::mt19937_64 rng(params.seed);
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  auto chance = [&](int percent) { return int(rng() % 100) < percent; };

  std::vector<Keypair> authors;
  for (uint8_t i = 0; i < 5; ++i) authors.push_back(key(uint8_t(10 + i)));
  const std::vector<std::string> channels = {"0b9a2d3c-2a0c-4a4e-9b7e-1f2d3c4b5a69",
                                             "7d1f0e2a-98b1-4c55-a0f4-4f3c2b1a0d9e",
                                             "e3c4d5f6-1a2b-4c3d-8e9f-0a1b2c3d4e5f"};
  const std::vector<std::string> t_values = {"a", "b", "c", "d", "nostr"};
  std::vector<std::string> p_values;
  for (const Keypair& k : authors) p_values.push_back(to_hex(k.pubkey));
  p_values.push_back(std::string(64, '7'));
  std::vector<std::string> e_values;
  for (int i = 0; i < 6; ++i) e_values.push_back(std::string(63, 'e') + char('0' + i));
  const std::vector<std::string> d_values = {"x", "y", "z", ""};
  const std::vector<uint16_t> kind_pool = {1, 1, 1, 1, 1, 7, 7, 9, 9, 9, 9, 40002, 40002, 1059,
                                           10002, 10002, 30023, 30023, 30023, 0, 5, 5};
  const uint64_t base = 1'700'000'000;

  std::vector<std::pair<Event, std::string>> generated;  // every event written, with its channel
  std::map<size_t, std::vector<size_t>> regular_by_author;  // deletable targets
  Model model;

  auto random_tag = [&]() -> Tag {
    switch (pick(8)) {
      case 0: case 1: return {"t", t_values[pick(t_values.size())]};
      case 2: case 3: return {"p", p_values[pick(p_values.size())]};
      case 4: return {"e", e_values[pick(e_values.size())], "wss://relay.example"};
      case 5: return {"t"};
      case 6: return {"title", t_values[pick(t_values.size())]};
      default: return {"T", t_values[pick(t_values.size())]};
    }
  };

  std::map<WriteOutcome, size_t> outcomes;
  size_t deletions = 0;
  const size_t kEvents = 2000;
  size_t written = 0;
  while (written < kEvents) {
    size_t batch_size = 1 + pick(40);
    std::vector<std::pair<Event, std::string>> batch;
    for (size_t b = 0; b < batch_size && written < kEvents; ++b, ++written) {
      if (!generated.empty() && chance(3)) {  // resubmit an earlier event
        batch.push_back(generated[pick(generated.size())]);
        continue;
      }
      size_t author = pick(authors.size());
      uint16_t kind = kind_pool[pick(kind_pool.size())];
      uint64_t at = base + pick(400);
      std::vector<Tag> tags;
      std::string channel;
      if (kind == 5) {
        auto& targets = regular_by_author[author];
        if (targets.empty()) {
          kind = 1;
        } else {
          const auto& [target, target_channel] = generated[targets[pick(targets.size())]];
          tags.push_back({"e", target.id_hex()});
          channel = target_channel;
          if (!channel.empty() && !params.inherited_channels) tags.push_back({"h", channel});
        }
      }
      if (kind == 7) {
        // A reaction to some earlier event, in that event's channel.
        if (!generated.empty()) {
          const auto& [target, target_channel] = generated[pick(generated.size())];
          tags.push_back({"e", target.id_hex()});
          channel = target_channel;
          if (!channel.empty() && !params.inherited_channels) tags.push_back({"h", channel});
        }
      }
      if (kind == 9 || kind == 40002) {
        channel = channels[pick(channels.size())];
        tags.push_back({"h", channel});
      }
      if (kind == 1 && chance(10)) tags.push_back({"h", channels[pick(channels.size())]});  // global: h ignored
      if (kind == 30023 && !chance(15)) tags.push_back({"d", d_values[pick(d_values.size())]});
      if (kind == 30023 && chance(10)) tags.push_back({"d", d_values[pick(d_values.size())]});
      for (size_t n = pick(4); n > 0; --n) {
        Tag t = random_tag();
        if (kind == 5 && t[0] == "e") continue;  // a deletion names exactly one target
        tags.push_back(std::move(t));
      }
      if (chance(5)) std::shuffle(tags.begin(), tags.end(), rng);
      std::string content = "m" + std::to_string(written);
      Event e = make_event(authors[author], kind, at, tags, content);
      generated.push_back({e, channel});
      if (kind == 1 || kind == 7 || kind == 9 || kind == 40002 || kind == 1059) {
        regular_by_author[author].push_back(generated.size() - 1);
      }
      batch.push_back({e, channel});
    }
    std::vector<std::pair<const Event*, std::string>> requests;
    for (const auto& [e, ch] : batch) requests.push_back({&e, ch});
    std::vector<WriteResult> results = write_batch(requests);
    ASSERT_EQ(results.size(), batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      std::vector<Id> expected_removed;
      WriteOutcome expected = model.apply(batch[i].first, batch[i].second, &expected_removed);
      ++outcomes[expected];
      deletions += batch[i].first.kind == 5 && expected == WriteOutcome::kStored;
      ASSERT_EQ(int(results[i].outcome), int(expected))
          << "write " << i << " kind " << batch[i].first.kind << ": " << results[i].reason;
      std::sort(expected_removed.begin(), expected_removed.end());
      std::vector<Id> got_removed = results[i].removed;
      std::sort(got_removed.begin(), got_removed.end());
      EXPECT_EQ(got_removed, expected_removed) << "write " << i << " kind " << batch[i].first.kind;
    }
  }
  ASSERT_GT(model.stored.size(), 1500u);
  // The generator must exercise every write rule, not just inserts.
  EXPECT_GT(outcomes[WriteOutcome::kDuplicate], 20u);
  EXPECT_GT(outcomes[WriteOutcome::kStale], 20u);
  EXPECT_GT(deletions, 20u);
  EXPECT_GT(model.dead.size(), 100u);

  // Random filters, written as JSON so the parser is exercised too.
  auto json_list = [](const std::vector<std::string>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ",\"" : "\"") + v[i] + "\"";
    return out + "]";
  };
  auto sample = [&](const std::vector<std::string>& pool, size_t max_n) {
    std::vector<std::string> out;
    for (size_t n = 1 + pick(max_n); n > 0; --n) out.push_back(pool[pick(pool.size())]);
    return out;
  };
  std::vector<std::string> all_ids;
  for (const auto& [e, ch] : generated) all_ids.push_back(e.id_hex());
  std::vector<std::string> author_pool = p_values;
  author_pool.pop_back();
  author_pool.push_back(to_hex(key(200).pubkey));  // a valid key with no events

  std::vector<std::string> filter_jsons = {"{}", R"({"limit":3})", R"({"kinds":[1,9]})"};
  while (filter_jsons.size() < 200) {
    std::vector<std::string> parts;
    if (chance(10)) {
      auto ids = sample(all_ids, 6);
      if (chance(30)) ids.push_back(std::string(64, '0'));
      parts.push_back("\"ids\":" + json_list(ids));
    }
    if (chance(35)) parts.push_back("\"authors\":" + json_list(sample(author_pool, 3)));
    if (chance(45)) {
      std::string kinds = "[";
      if (!chance(3)) {
        for (size_t n = 1 + pick(3); n > 0; --n) {
          uint16_t k = chance(10) ? 3 : kind_pool[pick(kind_pool.size())];
          kinds += (kinds.size() > 1 ? "," : "") + std::to_string(k);
        }
      }
      parts.push_back("\"kinds\":" + kinds + "]");
    }
    for (int n = chance(40) + chance(10); n > 0; --n) {
      switch (pick(7)) {
        case 0: parts.push_back("\"#t\":" + json_list(sample(t_values, 3))); break;
        case 1: parts.push_back("\"#p\":" + json_list(sample(p_values, 3))); break;
        case 2: {
          std::vector<std::string> pool = e_values;
          for (int i = 0; i < 6; ++i) pool.push_back(all_ids[pick(all_ids.size())]);
          parts.push_back("\"#e\":" + json_list(sample(pool, 3)));
          break;
        }
        case 3: parts.push_back("\"#h\":" + json_list(sample(channels, 2))); break;
        case 4: parts.push_back("\"#d\":" + json_list(sample(d_values, 2))); break;
        case 5: parts.push_back("\"#T\":" + json_list(sample(t_values, 2))); break;
        default: parts.push_back("\"#title\":[\"a\"]"); break;  // ignored key
      }
    }
    if (chance(25)) parts.push_back("\"since\":" + std::to_string(base - 10 + pick(420)));
    if (chance(25)) parts.push_back("\"until\":" + std::to_string(base - 10 + pick(420)));
    if (chance(40)) parts.push_back("\"limit\":" + std::to_string(chance(5) ? 1000 : pick(60)));
    std::shuffle(parts.begin(), parts.end(), rng);
    std::string json = "{";
    for (size_t i = 0; i < parts.size(); ++i) json += (i ? "," : "") + parts[i];
    filter_jsons.push_back(json + "}");
  }

  size_t nonempty = 0, mismatches = 0;
  std::vector<Filter> filters;
  for (const std::string& json : filter_jsons) {
    auto parsed = parse_filter_json(json);
    ASSERT_TRUE(parsed.ok()) << json << ": " << parsed.error();
    filters.push_back(*parsed);
    uint64_t total = 0;
    std::vector<std::string> expected = model.query(*parsed, kMaxQueryLimit, &total);
    std::vector<std::string> got = query(*parsed);
    nonempty += !expected.empty();
    if (got != expected && ++mismatches <= 10) {
      ADD_FAILURE() << "filter " << json << "\n  expected " << expected.size() << " events, got " << got.size();
    }
    uint64_t counted = 0;
    auto n = store_->count(std::span<const Filter>(&filters.back(), 1), {});
    ASSERT_TRUE(n.ok()) << n.error();
    counted = *n;
    EXPECT_EQ(counted, total) << "count of " << json;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(nonempty, 100u);  // the generator must produce meaningful filters

  // COUNT over groups of filters is the size of the union.
  for (size_t g = 0; g + 4 <= filters.size(); g += 4) {
    std::set<std::string> uni;
    for (size_t i = g; i < g + 4; ++i) {
      uint64_t total;
      Filter unlimited = filters[i];
      unlimited.limit.reset();
      for (const std::string& id : model.query(unlimited, SIZE_MAX, &total)) uni.insert(id);
    }
    auto n = store_->count(std::span<const Filter>(filters.data() + g, 4), {});
    ASSERT_TRUE(n.ok()) << n.error();
    EXPECT_EQ(*n, uni.size()) << "count over filters " << g << ".." << g + 3;
  }
}

INSTANTIATE_TEST_SUITE_P(FixedSeeds, StoreDifferential,
                         ::testing::Values(DiffParams{20240601, false}, DiffParams{7, false}, DiffParams{99, false},
                                           DiffParams{20240601, true}),
                         [](const ::testing::TestParamInfo<DiffParams>& info) {
                           return "Seed" + std::to_string(info.param.seed) +
                                  (info.param.inherited_channels ? "InheritedChannels" : "");
                         });

}  // namespace
}  // namespace buzz::engine
