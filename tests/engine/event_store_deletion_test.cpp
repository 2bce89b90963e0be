// Unit tests of NIP-09 deletion in both event stores (engine/write_rules) (docs/reference/protocol.md §11):
// by e and by a tag, with its exact refusal reasons.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/engine/event_store_fixture.h"

namespace buzz::engine {
namespace {

// ---------------------------------------------------------------------------
// deletion (docs/reference/protocol.md §11)

TEST_P(EventStoreTest, AuthorDeletesByETag) {
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

TEST_P(EventStoreTest, DeletionByAnotherAuthorIsRefused) {
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

TEST_P(EventStoreTest, DeletionOfUnknownTargetIsRefused) {
  Event del = make_event(alice, 5, 200, {{"e", std::string(64, 'a')}});
  WriteResult r = write(del);
  EXPECT_EQ(r.outcome, WriteOutcome::kInvalid);
  EXPECT_EQ(r.reason, "invalid: target event not found");
  Event bad_hex = make_event(alice, 5, 200, {{"e", "not-an-id"}});
  EXPECT_EQ(write(bad_hex).reason, "invalid: target event not found");
  EXPECT_TRUE(query("{}").empty());
}

TEST_P(EventStoreTest, DeletionNeedsExactlyOneTarget) {
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

TEST_P(EventStoreTest, DeletingAnAlreadyDeletedTargetIsStoredButChangesNothing) {
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

TEST_P(EventStoreTest, DeletionInTheSameBatchAsItsTarget) {
  Event target = make_event(alice, 9, 100, {{"h", chan}});
  Event del = make_event(alice, 5, 101, {{"e", hex(target)}, {"h", chan}});
  auto results = write_batch({{&target, chan}, {&del, chan}});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, WriteOutcome::kStored);
  EXPECT_EQ(results[1].outcome, WriteOutcome::kStored);
  EXPECT_EQ(results[1].removed, std::vector<Id>{target.id});
  EXPECT_EQ(query("{}"), ids_of({&del}));
  EXPECT_EQ(query(R"({"#h":[")" + chan + R"("]})"), ids_of({&del}));
}

TEST_P(EventStoreTest, DeletionReachesEveryStorageFamily) {
  Event regular = make_event(alice, 40002, 100, {{"h", chan}});
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

TEST_P(EventStoreTest, ATagDeletesTheAddressableVersion) {
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

TEST_P(EventStoreTest, ATagDeletionChecksAuthorAndFormat) {
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

TEST_P(EventStoreTest, ATagForANonAddressableKindHasNoEffect) {
  Event profile = make_event(alice, 10002, 100);
  ASSERT_EQ(write(profile).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 200, {{"a", "10002:" + to_hex(alice.pubkey) + ":"}});
  WriteResult r = write(del);
  EXPECT_EQ(r.outcome, WriteOutcome::kStored);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(query(R"({"kinds":[10002]})"), ids_of({&profile}));
}

TEST_P(EventStoreTest, AddressableCanBeRepublishedAfterATagDeletion) {
  Event v1 = make_event(alice, 30023, 100, {{"d", "slug"}});
  ASSERT_EQ(write(v1).outcome, WriteOutcome::kStored);
  Event del = make_event(alice, 5, 200, {{"a", "30023:" + to_hex(alice.pubkey) + ":slug"}});
  ASSERT_EQ(write(del).removed, std::vector<Id>{v1.id});
  Event v2 = make_event(alice, 30023, 300, {{"d", "slug"}});
  EXPECT_EQ(write(v2).outcome, WriteOutcome::kStored);
  EXPECT_EQ(query(R"({"kinds":[30023]})"), ids_of({&v2}));
}

// Rule A/B compare against the *live* row of the key (docs/reference/protocol.md §10: "if a
// live row with this key exists and ..."). Once the live version is deleted,
// there is none, so any version is stored again.
TEST_P(EventStoreTest, OlderReplaceableIsStoredAfterTheLiveVersionWasDeleted) {
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

TEST_P(EventStoreTest, OlderAddressableIsStoredAfterTheLiveVersionWasDeleted) {
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

}  // namespace
}  // namespace buzz::engine
