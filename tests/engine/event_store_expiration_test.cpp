// Unit tests of NIP-40 expiration in both event stores (+ event_record,
// expiration): the record keeps an event's expiration; an expired event is
// hidden from every read (query by filter and by id, count, the NIP-77 scan,
// get, lookup) without waiting for the reaper; expired() lists the expired
// earliest first within its bound, and erase_expired() leaves nothing of them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/clock.h"
#include "engine/event_record.h"
#include "engine/expiration.h"
#include "tests/engine/event_store_fixture.h"

namespace buzz::engine {
namespace {

class EventStoreExpirationTest : public EventStoreTest {
 protected:
  static Tag expiring(uint64_t at) { return {"expiration", std::to_string(at)}; }

  std::vector<std::string> scan_all_ids(const std::string& filter_json) {
    auto f = parse_filter_json(filter_json);
    EXPECT_TRUE(f.ok()) << f.error();
    std::vector<std::string> ids;
    Status s = store_->scan_all(*f, {}, 1000, [&](const EventFields& fields) { ids.push_back(to_hex(fields.id, 32)); });
    EXPECT_TRUE(s.ok()) << s.error();
    return ids;
  }
};
BUZZ_ON_BOTH_STORES(EventStoreExpirationTest);

TEST(RocksRecordTest, TheRecordKeepsTheExpiration) {
  Event e = make_event(key(1), 9, 77, {{"h", "c"}, {"expiration", "1234"}, {"expiration", "99"}});
  std::string value;
  encode_record(e, "c", 0, &value);
  RecordView rec;
  ASSERT_TRUE(decode_record(value, &rec));
  EXPECT_EQ(rec.expires_at, 1234u);  // the first tag counts
  EXPECT_EQ(rec.raw, e.raw);
  EXPECT_EQ(rec.fields.channel, "c");
  EXPECT_FALSE(rec.hidden(1233));
  EXPECT_TRUE(rec.hidden(1234));
  set_record_flags(&value, kRecordDeleted);  // the layout bit stays
  ASSERT_TRUE(decode_record(value, &rec));
  EXPECT_TRUE(rec.deleted());
  EXPECT_EQ(rec.expires_at, 1234u);
  for (const Tag& none : {Tag{"expiration", "soon"}, Tag{"expiration", "-5"}, Tag{"expiration", ""}, Tag{"x", "1"}}) {
    Event m = make_event(key(1), 1, 77, {none});
    std::string v;
    encode_record(m, "", 0, &v);
    ASSERT_TRUE(decode_record(v, &rec));
    EXPECT_EQ(rec.expires_at, kNeverExpires) << none[1];
    EXPECT_FALSE(expiration_of(m)) << none[1];
  }
}

TEST_P(EventStoreExpirationTest, AnExpiredEventIsHiddenFromEveryReadBeforeItIsErased) {
  const uint64_t now = unix_now();
  Event gone = make_event(alice, 1, now - 10, {expiring(now - 1)});
  Event later = make_event(alice, 1, now - 20, {expiring(now + 3600)});
  Event kept = make_event(alice, 1, now - 30);
  for (const Event* e : {&gone, &later, &kept}) ASSERT_EQ(write(*e).outcome, WriteOutcome::kStored);
  const std::vector<std::string> live = {hex(later), hex(kept)};
  EXPECT_EQ(query(R"({"kinds":[1]})"), live);
  EXPECT_EQ(query(R"({"authors":[")" + to_hex(alice.pubkey) + R"("]})"), live);
  EXPECT_TRUE(query(R"({"ids":[")" + hex(gone) + R"("]})").empty());
  EXPECT_EQ(count({R"({"kinds":[1]})"}), 2u);
  EXPECT_EQ(scan_all_ids("{}"), live);  // the whole store, read in storage order
  EXPECT_EQ(scan_all_ids(R"({"kinds":[1]})"), live);
  EXPECT_FALSE(store_->get(gone.id));
  ASSERT_TRUE(store_->lookup(gone.id));
  EXPECT_TRUE(store_->lookup(gone.id)->deleted);
  EXPECT_TRUE(store_->contains(gone.id, 1));  // until the reaper erases it
}

TEST_P(EventStoreExpirationTest, TheReaperErasesTheEarliestFirstWithinItsBound) {
  const uint64_t now = unix_now();
  Event first = make_event(alice, 9, now - 10, {{"h", chan}, expiring(now - 5)});
  Event second = make_event(bob, 30023, now - 20, {{"d", "a"}, expiring(now - 2)});
  Event third = make_event(alice, 1, now - 30, {expiring(now - 1)});
  Event later = make_event(alice, 1, now - 40, {expiring(now + 3600)});
  ASSERT_EQ(write(first, chan).outcome, WriteOutcome::kStored);
  for (const Event* e : {&second, &third, &later}) ASSERT_EQ(write(*e).outcome, WriteOutcome::kStored);
  // A deleted event is erased too when it expires.
  Event deletion = make_event(alice, 5, now - 1, {{"e", hex(third)}});
  ASSERT_EQ(write(deletion).outcome, WriteOutcome::kStored);

  auto two = store_->expired(now, 2);
  ASSERT_TRUE(two.ok()) << two.error();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].id, first.id);
  EXPECT_EQ((*two)[0].pubkey, alice.pubkey);
  EXPECT_EQ((*two)[0].kind, 9);
  EXPECT_EQ((*two)[0].channel, chan);
  EXPECT_EQ((*two)[0].expires_at, now - 5);
  EXPECT_EQ((*two)[1].id, second.id);
  ASSERT_TRUE(store_->erase_expired(*two, {}).ok());
  auto rest = store_->expired(now, 10);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ((*rest)[0].id, third.id);
  ASSERT_TRUE(store_->erase_expired(*rest, {}).ok());
  EXPECT_TRUE(store_->expired(now + 7200, 10)->size() == 1u);  // `later`, in its time
  EXPECT_TRUE(store_->expired(now, 10)->empty());

  for (const Event* e : {&first, &second, &third}) {
    EXPECT_FALSE(store_->contains(e->id, e->kind)) << hex(*e);
    EXPECT_FALSE(store_->lookup(e->id)) << hex(*e);
  }
  if (backend() == Backend::kRocksDB) {
    // No index entry is left: a scan that reads index keys alone finds only the live events.
    std::vector<std::string> keys;
    Filter all;
    ASSERT_TRUE(rocks().scan_index_keys(all, [&](uint64_t, const Id& id) { keys.push_back(to_hex(id)); }).ok());
    EXPECT_EQ(keys, (std::vector<std::string>{hex(deletion), hex(later)}));
  }
  EXPECT_TRUE(query(R"({"#h":[")" + chan + R"("]})").empty());
  EXPECT_TRUE(query(R"({"#d":["a"]})").empty());
  // Survives a reopen.
  reopen();
  EXPECT_EQ(query(R"({"authors":[")" + to_hex(alice.pubkey) + R"("]})"), (std::vector<std::string>{hex(deletion), hex(later)}));
}

}  // namespace
}  // namespace buzz::engine
