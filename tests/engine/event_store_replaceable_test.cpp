// Unit tests of supersession in both event stores (engine/write_rules): replaceable kinds
// (docs/reference/protocol.md §10 rule A) and addressable ones (rule B), with the lowest-id
// tie rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/engine/event_store_fixture.h"

namespace buzz::engine {
namespace {

// ---------------------------------------------------------------------------
// replaceable events (docs/reference/protocol.md §10 rule A)

TEST_P(EventStoreTest, NewerReplaceableReplacesOlder) {
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

TEST_P(EventStoreTest, OlderReplaceableIsStale) {
  Event new_e = make_event(alice, 0, 200, {}, "{\"name\":\"new\"}");
  Event old_e = make_event(alice, 0, 100, {}, "{\"name\":\"old\"}");
  ASSERT_EQ(write(new_e).outcome, WriteOutcome::kStored);
  WriteResult r = write(old_e);
  EXPECT_EQ(r.outcome, WriteOutcome::kStale);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(query(R"({"kinds":[0]})"), ids_of({&new_e}));
  EXPECT_FALSE(store_->get(old_e.id));
}

TEST_P(EventStoreTest, ReplaceableTieGoesToLowestIdInEitherOrder) {
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

TEST_P(EventStoreTest, ReplaceableKeyIsKindPubkeyAndChannel) {
  Event a = make_event(alice, 10000, 100);
  Event other_kind = make_event(alice, 10001, 100);
  Event other_author = make_event(bob, 10000, 100);
  Event in_channel = make_event(alice, 10000, 100);
  ASSERT_EQ(write(a).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(other_kind).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(other_author).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(in_channel, chan).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query("{}").size(), 4u);
  // Newer in the channel replaces only the channel's copy.
  Event in_channel2 = make_event(alice, 10000, 101);
  WriteResult r = write(in_channel2, chan);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  ASSERT_EQ(r.removed.size(), 1u);
  EXPECT_EQ(r.removed[0], in_channel.id);
  EXPECT_EQ(query(R"({"kinds":[10000],"authors":)" + authors_json({&alice}) + "}"), ids_of({&in_channel2, &a}));
}

TEST_P(EventStoreTest, ReplaceableChainInOneBatch) {
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

TEST_P(EventStoreTest, Kind41IsReplaceable) {
  Event v1 = make_event(alice, 41, 100), v2 = make_event(alice, 41, 200);
  ASSERT_EQ(write(v1).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(v2).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query(R"({"kinds":[41]})"), ids_of({&v2}));
}

// ---------------------------------------------------------------------------
// addressable events (rule B)

TEST_P(EventStoreTest, AddressableIsKeyedByDTag) {
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

TEST_P(EventStoreTest, AddressableTieGoesToLowestId) {
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

TEST_P(EventStoreTest, MissingDTagIsTheEmptyD) {
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

TEST_P(EventStoreTest, AddressableUsesTheFirstDTag) {
  Event v1 = make_event(alice, 30003, 100, {{"d", "one"}, {"d", "two"}});
  Event v2 = make_event(alice, 30003, 200, {{"d", "one"}});
  Event other = make_event(alice, 30003, 300, {{"d", "two"}});
  ASSERT_EQ(write(v1).outcome, WriteOutcome::kStored);
  EXPECT_EQ(write(v2).removed, std::vector<Id>{v1.id});
  EXPECT_TRUE(write(other).removed.empty());
}

TEST_P(EventStoreTest, AddressableKeyIgnoresChannel) {
  Event v1 = make_event(alice, 30315, 100, {{"d", "general"}});
  Event v2 = make_event(alice, 30315, 200, {{"d", "general"}});
  ASSERT_EQ(write(v1, chan).outcome, WriteOutcome::kStored);
  WriteResult r = write(v2, other);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_EQ(r.removed, std::vector<Id>{v1.id});
  EXPECT_EQ(query(R"({"kinds":[30315]})"), ids_of({&v2}));
}

TEST_P(EventStoreTest, DTagLimitIs1024Bytes) {
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

TEST_P(EventStoreTest, GroupStateKindsUseRuleA) {
  // 39000–39002: keyed by channel, so one relay key's groups do not replace each other.
  Event g1 = make_event(alice, 39000, 100, {{"d", "g1"}});
  Event g2 = make_event(alice, 39000, 100, {{"d", "g2"}});
  ASSERT_EQ(write(g1, chan).outcome, WriteOutcome::kStored);
  ASSERT_EQ(write(g2, other).outcome, WriteOutcome::kStored);
  Event g1b = make_event(alice, 39000, 101, {{"d", "g1"}});
  EXPECT_EQ(write(g1b, chan).removed, std::vector<Id>{g1.id});
  EXPECT_EQ(query(R"({"kinds":[39000]})"), ids_of({&g1b, &g2}));
}

}  // namespace
}  // namespace buzz::engine
