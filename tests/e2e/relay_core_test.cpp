// End-to-end tests of publishing: EVENT's checks and their exact OK texts
// (docs/reference/protocol.md §8), replaceable and addressable kinds, deletion (kind 5) and
// ephemeral kinds. The fixture is in open_relay_fixture.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/canonical.h"
#include "engine/event.h"
#include "engine/hex.h"
#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/open_relay_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

// --- Publishing ----------------------------------------------------------------

TEST_F(OpenRelayTest, PublishValidEventIsAcceptedWithEmptyReason) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  OkReply ok = c->publish(make_event(key, 1, "hello buzz"));
  ASSERT_TRUE(ok.received);
  EXPECT_TRUE(ok.accepted);
  EXPECT_EQ(ok.reason, "");
}

TEST_F(OpenRelayTest, PublishSameEventTwiceRepliesDuplicate) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event e = make_event(key, 1, "twice");
  ASSERT_TRUE(c->publish(e).accepted);
  OkReply again = c->publish(e);
  ASSERT_TRUE(again.received);
  EXPECT_TRUE(again.accepted);
  EXPECT_EQ(again.reason, "duplicate:");
}

TEST_F(OpenRelayTest, EventWithWrongIdIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event e = make_event(key, 1, "original");
  e.content = "tampered";  // the id no longer matches the fields
  e.raw = engine::serialize_event(e);
  OkReply ok = c->publish(e);
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: invalid event id: computed " + engine::to_hex(engine::compute_id(e)) +
                           ", got " + e.id_hex());
  EXPECT_TRUE(ok.reason.starts_with("invalid: invalid event id: computed")) << ok.reason;
}

TEST_F(OpenRelayTest, EventWithBadSignatureIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  OkReply ok = c->publish(with_bad_signature(make_event(key, 1, "signed")));
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: invalid schnorr signature");
}

TEST_F(OpenRelayTest, EventByAnotherPubkeyThanTheAuthenticatedOneIsRejected) {
  Keypair me = engine::generate_keypair();
  auto c = authed_client(relay(), me);
  ASSERT_TRUE(c);
  OkReply ok = c->publish(make_event(engine::generate_keypair(), 1, "not mine"));
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: event pubkey does not match authenticated identity");
}

TEST_F(OpenRelayTest, AuthKindSentAsEventIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  OkReply ok = c->publish(client::auth_event(key, c->relay_url(), c->challenge()));
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: AUTH events cannot be submitted via EVENT");
}

TEST_F(OpenRelayTest, EventOutsideTheClockWindowIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  OkReply ok = c->publish(make_event(key, 1, "from the past", {}, unix_now() - 1000));
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: event timestamp too far from server time");
}

TEST_F(OpenRelayTest, EventCreatedAtBeyond2To63IsOutsideTheClockWindow) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  for (uint64_t created_at : created_at_beyond_2_to_63()) {
    SCOPED_TRACE("created_at " + std::to_string(created_at));
    OkReply ok = c->publish(make_event(key, 1, "from the far future", {}, created_at));
    ASSERT_TRUE(ok.received);
    EXPECT_FALSE(ok.accepted);
    EXPECT_EQ(ok.reason, "invalid: event timestamp too far from server time");
  }
}

TEST_F(OpenRelayTest, EventOfUnknownOrRelaySignedKindIsRestricted) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  // NIP-34 (out of scope), auth events of other protocols (24242 has its own
  // words: media_test.cpp), relay-signed NIP-43.
  for (uint16_t kind : {1617, 27235, 8000, 13534}) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    OkReply ok = c->publish(make_event(key, kind, ""));
    ASSERT_TRUE(ok.received);
    EXPECT_FALSE(ok.accepted);
    EXPECT_EQ(ok.reason, "restricted: unknown event kind");
  }
}

// docs/reference/protocol.md §8.1–8.2: the first failing check decides the reply. On the
// socket the author comes first (W2, then W3); the signature and the clock
// come before the kind allow-list (steps 2, 2b, then 4).
TEST_F(OpenRelayTest, IngestChecksAnswerInTheSpecifiedOrder) {
  Keypair key = engine::generate_keypair(), other = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  OkReply foreign_auth = c->publish(client::auth_event(other, c->relay_url(), c->challenge()));
  EXPECT_EQ(foreign_auth.reason, "invalid: event pubkey does not match authenticated identity");

  EXPECT_EQ(c->publish(with_bad_signature(make_event(key, 1617, ""))).reason, "invalid: invalid schnorr signature");

  OkReply unknown_stale = c->publish(make_event(key, 1617, "", {}, unix_now() - 1000));
  EXPECT_EQ(unknown_stale.reason, "invalid: event timestamp too far from server time");
  EXPECT_EQ(c->publish(make_event(key, 1617, "")).reason, "restricted: unknown event kind");
}

TEST_F(OpenRelayTest, ProfileWithNonJsonContentIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  OkReply ok = c->publish(make_event(key, 0, "not json"));
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: kind:0 content must be valid JSON");
}

TEST_F(OpenRelayTest, HistoryReturnsTheEventAsPublished) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event e = make_event(key, 1, "quote \" backslash \\ tab \t unicode é", {{"t", "x"}, {"p", hex(key), "wss://r"}});
  ASSERT_TRUE(c->publish(e).accepted);
  ReqResult r = c->req("one", R"({"kinds":[1],"ids":[")" + e.id_hex() + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  ASSERT_EQ(r.events.size(), 1u);
  const Event& got = r.events[0];
  EXPECT_EQ(got.id, e.id);
  EXPECT_EQ(got.pubkey, e.pubkey);
  EXPECT_EQ(got.sig, e.sig);
  EXPECT_EQ(got.created_at, e.created_at);
  EXPECT_EQ(got.kind, e.kind);
  EXPECT_EQ(got.tags, e.tags);
  EXPECT_EQ(got.content, e.content);
}

TEST_F(OpenRelayTest, EventIsRelayedWithTheSubmittersBytes) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  auto sub = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(c && sub);
  ASSERT_TRUE(sub->req("live", R"({"kinds":[1],"authors":[")" + hex(key) + R"("]})").eose);
  // Keys in alphabetical order, not NIP-01 order: the relay must not re-serialize.
  const Event e = make_event(key, 1, "bytes as sent");
  std::string tags;
  engine::append_json_tags(tags, e.tags);
  const std::string object = R"({"content":)" + json_quote(e.content) +
                             R"(,"created_at":)" + std::to_string(e.created_at) + R"(,"id":")" + e.id_hex() +
                             R"(","kind":1,"pubkey":")" + e.pubkey_hex() + R"(","sig":")" +
                             engine::to_hex(e.sig) + R"(","tags":)" + tags + "}";
  ASSERT_TRUE(c->send("[\"EVENT\"," + object + "]"));
  OkReply ok = c->wait_ok(e.id_hex());
  ASSERT_TRUE(ok.accepted) << ok.reason;
  auto live = sub->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; });
  ASSERT_TRUE(live) << "no live EVENT";
  EXPECT_EQ(live->raw, R"(["EVENT","live",)" + object + "]");
  ASSERT_TRUE(c->send(R"(["REQ","stored",{"kinds":[1],"ids":[")" + e.id_hex() + R"("]}])"));
  auto stored = c->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; });
  ASSERT_TRUE(stored) << "no stored EVENT";
  EXPECT_EQ(stored->raw, R"(["EVENT","stored",)" + object + "]");
}

// --- Replaceable and addressable kinds -----------------------------------------

TEST_F(OpenRelayTest, NewerReplaceableEventReplacesOlderAndOlderIsDuplicate) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  const uint64_t t = unix_now();
  Event v1 = make_event(key, 0, R"({"name":"v1"})", {}, t - 10);
  Event v2 = make_event(key, 0, R"({"name":"v2"})", {}, t - 5);
  Event v0 = make_event(key, 0, R"({"name":"v0"})", {}, t - 20);
  ASSERT_TRUE(c->publish(v1).accepted);
  OkReply newer = c->publish(v2);
  EXPECT_TRUE(newer.accepted);
  EXPECT_EQ(newer.reason, "");
  OkReply older = c->publish(v0);
  EXPECT_TRUE(older.accepted);
  EXPECT_EQ(older.reason, "duplicate:");
  ReqResult r = c->req("profile", R"({"kinds":[0],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{v2.id_hex()}));
}

TEST_F(OpenRelayTest, ReplaceableTieOnCreatedAtKeepsTheLowestId) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  const uint64_t t = unix_now() - 30;
  std::vector<Event> same;
  for (int i = 0; i < 3; ++i) same.push_back(make_event(key, 10002, "", {{"r", "wss://r" + std::to_string(i)}}, t));
  std::sort(same.begin(), same.end(), [](const Event& a, const Event& b) { return a.id_hex() < b.id_hex(); });
  const Event &low = same[0], &mid = same[1], &high = same[2];
  OkReply first = c->publish(mid);
  EXPECT_TRUE(first.accepted);
  EXPECT_EQ(first.reason, "");
  OkReply higher = c->publish(high);  // same time, higher id: loses
  EXPECT_TRUE(higher.accepted);
  EXPECT_EQ(higher.reason, "duplicate:");
  OkReply lower = c->publish(low);  // same time, lower id: wins
  EXPECT_TRUE(lower.accepted);
  EXPECT_EQ(lower.reason, "");
  ReqResult r = c->req("relays", R"({"kinds":[10002],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{low.id_hex()}));
}

TEST_F(OpenRelayTest, AddressableEventIsReplacedPerDTag) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  const uint64_t t = unix_now();
  Event a1 = make_event(key, 30023, "post one, draft", {{"d", "post-1"}}, t - 20);
  Event b1 = make_event(key, 30023, "post two", {{"d", "post-2"}}, t - 15);
  Event a2 = make_event(key, 30023, "post one, final", {{"d", "post-1"}}, t - 10);
  Event a0 = make_event(key, 30023, "post one, ancient", {{"d", "post-1"}}, t - 30);
  ASSERT_TRUE(c->publish(a1).accepted);
  ASSERT_TRUE(c->publish(b1).accepted);
  OkReply newer = c->publish(a2);
  EXPECT_TRUE(newer.accepted);
  EXPECT_EQ(newer.reason, "");
  OkReply older = c->publish(a0);
  EXPECT_TRUE(older.accepted);
  EXPECT_EQ(older.reason, "duplicate:");
  ReqResult all = c->req("articles", R"({"kinds":[30023],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(all.eose) << why(all);
  EXPECT_EQ(ids_of(all.events), (std::vector<std::string>{a2.id_hex(), b1.id_hex()}));
  ReqResult by_d = c->req("post1", R"({"kinds":[30023],"authors":[")" + hex(key) + R"("],"#d":["post-1"]})");
  ASSERT_TRUE(by_d.eose) << why(by_d);
  EXPECT_EQ(ids_of(by_d.events), (std::vector<std::string>{a2.id_hex()}));
}

TEST_F(OpenRelayTest, AddressableDTagLongerThan1024BytesIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->publish(make_event(key, 30023, "", {{"d", std::string(1024, 'd')}})).accepted);
  OkReply ok = c->publish(make_event(key, 30023, "", {{"d", std::string(1025, 'd')}}));
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "invalid: d tag too long (1025 bytes, max 1024)");
}

// --- Deletion (kind 5) -----------------------------------------------------------

TEST_F(OpenRelayTest, DeletionByAuthorRemovesTheEventFromHistory) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event target = make_event(key, 1, "regrettable");
  ASSERT_TRUE(c->publish(target).accepted);
  OkReply del = c->publish(make_event(key, 5, "oops", {{"e", target.id_hex()}}));
  ASSERT_TRUE(del.received);
  EXPECT_TRUE(del.accepted) << del.reason;
  EXPECT_EQ(del.reason, "");
  ReqResult r = c->req("gone", R"({"kinds":[1],"ids":[")" + target.id_hex() + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_TRUE(r.events.empty());
  auto n = c->count("gone-count", R"({"kinds":[1],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->count, 0);
}

TEST_F(OpenRelayTest, DeletionByNonAuthorIsRejectedAndEventStays) {
  Keypair author = engine::generate_keypair(), mallory = engine::generate_keypair();
  auto ca = authed_client(relay(), author);
  auto cm = authed_client(relay(), mallory);
  ASSERT_TRUE(ca && cm);
  Event target = make_event(author, 1, "keep me");
  ASSERT_TRUE(ca->publish(target).accepted);
  OkReply del = cm->publish(make_event(mallory, 5, "", {{"e", target.id_hex()}}));
  ASSERT_TRUE(del.received);
  EXPECT_FALSE(del.accepted);
  EXPECT_EQ(del.reason, "invalid: must be event author");
  ReqResult r = cm->req("still", R"({"kinds":[1],"ids":[")" + target.id_hex() + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_EQ(ids_of(r.events), (std::vector<std::string>{target.id_hex()}));
}

TEST_F(OpenRelayTest, DeletionWithTwoTargetsIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event a = make_event(key, 1, "a"), b = make_event(key, 1, "b");
  ASSERT_TRUE(c->publish(a).accepted);
  ASSERT_TRUE(c->publish(b).accepted);
  OkReply del = c->publish(make_event(key, 5, "", {{"e", a.id_hex()}, {"e", b.id_hex()}}));
  ASSERT_TRUE(del.received);
  EXPECT_FALSE(del.accepted);
  EXPECT_EQ(del.reason, "invalid: deletion events must reference exactly one target via e or a tag (got e=2, a=0)");
}

TEST_F(OpenRelayTest, DeletionByATagRemovesTheAddressableEvent) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event article = make_event(key, 30023, "to be removed", {{"d", "doomed"}});
  ASSERT_TRUE(c->publish(article).accepted);
  OkReply del = c->publish(make_event(key, 5, "", {{"a", "30023:" + hex(key) + ":doomed"}}));
  ASSERT_TRUE(del.received);
  EXPECT_TRUE(del.accepted) << del.reason;
  ReqResult r = c->req("gone", R"({"kinds":[30023],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  EXPECT_TRUE(r.events.empty());
}

TEST_F(OpenRelayTest, DeletionOfUnknownEventIsRejected) {
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  OkReply del = c->publish(make_event(key, 5, "", {{"e", std::string(64, 'a')}}));
  ASSERT_TRUE(del.received);
  EXPECT_FALSE(del.accepted);
  EXPECT_EQ(del.reason, "invalid: target event not found");
}

// --- Ephemeral kinds -------------------------------------------------------------

TEST_F(OpenRelayTest, EphemeralEventIsDeliveredLiveButNeverStored) {
  Keypair author = engine::generate_keypair();
  auto pub = authed_client(relay(), author);
  auto sub = authed_client(relay(), engine::generate_keypair());
  ASSERT_TRUE(pub && sub);
  // Typing (20002) lives in a channel; an open one admits every relay user.
  const std::string channel = "6f1c2a4e-0000-4000-8000-" + hex(author).substr(0, 12);
  ASSERT_TRUE(pub->publish(make_event(author, 9007, "", {{"h", channel}, {"name", "ephemeral"}})).accepted);
  const std::string filter = R"({"kinds":[20002],"#h":[")" + channel + R"("]})";
  ReqResult r = sub->req("typing", filter);
  ASSERT_TRUE(r.eose) << why(r);
  Event e = make_event(author, 20002, "", {{"h", channel}});
  OkReply ok = pub->publish(e);
  EXPECT_TRUE(ok.accepted);
  EXPECT_EQ(ok.reason, "");
  auto live = sub->wait_for([&](const RelayMessage& m) {
    return m.type == "EVENT" && m.id == "typing" && m.event.id == e.id;
  });
  EXPECT_TRUE(live) << "the subscriber did not get the ephemeral event";
  ReqResult later = pub->req("replay", filter);
  ASSERT_TRUE(later.eose) << why(later);
  EXPECT_TRUE(later.events.empty());
}

}  // namespace
}  // namespace buzz::test
