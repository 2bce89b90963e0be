// End-to-end tests of the Nostr HTTP bridge (docs/reference/rest-api.md §6, docs/reference/protocol.md §17):
// POST /events, /query and /count, NIP-98 signed, against the real binary.
// Each read rule of REQ and COUNT is checked here too, denied case first: a
// private channel's events, p-gated kinds and presence never reach a caller
// who may not see them; then the extension keys (before_id, depth_limit,
// feed_types) and the presence lookup.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/api_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

class BridgeTest : public ApiFixture<BridgeTest> {
 public:
  static std::vector<std::string> relay_args() { return {"--rate-limits", "false"}; }

 protected:
  static HttpReply post(const Keypair& key, const std::string& path, const std::string& body) {
    return signed_call(key, "POST", path, body);
  }
  // The ids a /query answered, in order; fails the test on anything but 200.
  static std::vector<std::string> query(const Keypair& key, const std::string& filters) {
    HttpReply r = post(key, "/query", filters);
    EXPECT_EQ(r.status, 200) << filters << " -> " << r.body;
    std::vector<std::string> ids;
    simdjson::dom::parser parser;
    simdjson::dom::array events;
    if (parser.parse(r.body).get_array().get(events)) return ids;
    for (simdjson::dom::element e : events) ids.emplace_back(e["id"].get_string().value_unsafe());
    return ids;
  }
  static int64_t count(const Keypair& key, const std::string& filters) {
    HttpReply r = post(key, "/count", filters);
    EXPECT_EQ(r.status, 200) << filters << " -> " << r.body;
    simdjson::dom::parser parser;
    int64_t n = -1;
    if (parser.parse(r.body)["count"].get_int64().get(n)) return -1;
    return n;
  }
  static std::string channel(const Keypair& owner, const std::string& visibility) {
    const std::string ch = "b1d9e000-0000-4000-8000-" + hex(owner).substr(0, 12);
    EXPECT_TRUE(client(owner)->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "bridge"}, {"visibility", visibility}})).accepted);
    return ch;
  }
};

TEST_F(BridgeTest, EventsRunTheEventPipelineAndTakeOnlyNip98) {
  Keypair alice = engine::generate_keypair();
  Event note = make_event(alice, 1, "over the bridge");
  HttpReply ok = post(alice, "/events", note.raw);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, R"({"accepted":true,"event_id":")" + note.id_hex() + R"(","message":""})");
  EXPECT_EQ(query(alice, R"([{"ids":[")" + note.id_hex() + R"("]}])"), std::vector<std::string>{note.id_hex()});

  Event forged = make_event(alice, 1, "forged");
  forged.raw.replace(forged.raw.find("forged"), 6, "edited");
  HttpReply refused = post(alice, "/events", forged.raw);
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("invalid: "), std::string::npos) << refused.body;

  HttpReply bearer = http_call(relay_->port(), "POST", "/query", {{"Authorization", "Bearer buzz_" + std::string(64, 'a')}}, "[]");
  EXPECT_EQ(bearer.status, 401);
  EXPECT_EQ(bearer.body, R"({"error":"missing Nostr auth"})");
  EXPECT_EQ(http_call(relay_->port(), "POST", "/query", {}, "[]").body, R"({"error":"missing Nostr auth"})");
  EXPECT_EQ(get(alice, "/query").status, 405);
}

TEST_F(BridgeTest, QueryAnswersAsAReqWouldAndRefusesBadBodies) {
  Keypair alice = engine::generate_keypair();
  auto c = client(alice);
  std::vector<Event> notes;
  for (int i = 0; i < 3; ++i) {
    notes.push_back(make_event(alice, 1, "note " + std::to_string(i), {}, unix_now() - 10 + uint64_t(i)));
    ASSERT_TRUE(c->publish(notes.back()).accepted);
  }
  const std::string mine = R"({"kinds":[1],"authors":[")" + hex(alice) + R"("]})";
  const std::vector<std::string> newest_first = {notes[2].id_hex(), notes[1].id_hex(), notes[0].id_hex()};
  EXPECT_EQ(query(alice, "[" + mine + "]"), newest_first);
  EXPECT_EQ(query(alice, "[" + mine + "," + mine + "]"), newest_first);  // listed once
  EXPECT_EQ(count(alice, "[" + mine + "," + mine + "]"), 6);             // summed over filters

  EXPECT_EQ(post(alice, "/query", "{}").body, R"({"error":"body must be a JSON array of filters"})");
  EXPECT_EQ(post(alice, "/query", R"([{"kinds":"1"}])").status, 400);
  std::string eleven = "[" + mine;
  for (int i = 0; i < 10; ++i) eleven += "," + mine;
  EXPECT_EQ(post(alice, "/query", eleven + "]").body, R"j({"error":"too many filters (max 10)"})j");
}

TEST_F(BridgeTest, PrivateChannelsAndGatedKindsStayWithTheirReaders) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  const std::string ch = channel(alice, "private");
  Event secret = make_event(alice, 9, "members only: zebrafinch", {{"h", ch}});
  ASSERT_TRUE(client(alice)->publish(secret).accepted);
  const std::string in_channel = R"([{"kinds":[9],"#h":[")" + ch + R"("]}])";
  EXPECT_EQ(query(bob, in_channel), std::vector<std::string>{});  // skipped silently
  EXPECT_EQ(count(bob, in_channel), 0);
  EXPECT_EQ(query(bob, R"([{"kinds":[9],"authors":[")" + hex(alice) + R"("]}])"), std::vector<std::string>{});
  EXPECT_EQ(query(alice, in_channel), std::vector<std::string>{secret.id_hex()});
  // Nor through a thread, a feed or a search of it.
  Event reply = make_event(alice, 9, "@bob, members only", {{"h", ch}, {"e", secret.id_hex(), "", "root"}, {"p", hex(bob)}});
  ASSERT_TRUE(client(alice)->publish(reply).accepted);
  const std::string thread = R"([{"#e":[")" + secret.id_hex() + R"("],"depth_limit":3}])";
  EXPECT_EQ(query(bob, thread), std::vector<std::string>{});
  EXPECT_EQ(query(alice, thread), std::vector<std::string>{reply.id_hex()});
  EXPECT_EQ(query(bob, R"([{"feed_types":["mentions"]}])"), std::vector<std::string>{});
  // Search: once the index has the message (it trails the store), alice finds it and bob does not.
  const std::string search = R"([{"search":"zebrafinch","kinds":[9]}])";
  for (int i = 0; i < 50 && query(alice, search).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(query(alice, search), std::vector<std::string>{secret.id_hex()});
  EXPECT_EQ(query(bob, search), std::vector<std::string>{});
  EXPECT_EQ(count(alice, search), 1);  // a search counts its hits, not every kind 9
  EXPECT_EQ(count(bob, search), 0);

  // alice's own notification of the channel she created is hers to read; p-gated
  // kinds are narrowed (docs/channels.md), so bob's query for them leaves it out.
  const std::vector<std::string> hers = query(alice, R"([{"kinds":[44100],"#p":[")" + hex(alice) + R"("]}])");
  ASSERT_EQ(hers.size(), 1u);
  const std::vector<std::string> his = query(bob, R"([{"kinds":[44100]}])");
  EXPECT_EQ(std::count(his.begin(), his.end(), hers[0]), 0);
  EXPECT_EQ(count(bob, R"([{"kinds":[44100]}])"), int64_t(his.size()));
  EXPECT_EQ(count(bob, R"([{"kinds":[1059]}])"), 0);
}

// Pages of two, following the cursor: every event exactly once, in the
// query's order (newest first, ids ascending within a second).
TEST_F(BridgeTest, BeforeIdPagesThroughTiesWithoutRepeatsOrGaps) {
  Keypair alice = engine::generate_keypair();
  auto c = client(alice);
  const uint64_t t = unix_now() - 100;
  std::vector<Event> same_second;
  for (int i = 0; i < 4; ++i) {
    same_second.push_back(make_event(alice, 1, "tie " + std::to_string(i), {}, t));
    ASSERT_TRUE(c->publish(same_second.back()).accepted);
  }
  Event older = make_event(alice, 1, "older", {}, t - 1);
  ASSERT_TRUE(c->publish(older).accepted);
  std::sort(same_second.begin(), same_second.end(), [](const Event& a, const Event& b) { return a.id_hex() < b.id_hex(); });
  std::vector<std::string> expected;
  for (const Event& e : same_second) expected.push_back(e.id_hex());
  expected.push_back(older.id_hex());

  const std::string base = R"({"authors":[")" + hex(alice) + R"("],"kinds":[1],"limit":2)";
  std::vector<std::string> seen = query(alice, "[" + base + "}]");
  ASSERT_EQ(seen.size(), 2u);
  for (int page = 0; page < 3 && seen.size() < expected.size(); ++page) {
    const std::string cursor = R"(,"until":)" + std::to_string(t) + R"(,"before_id":")" + seen.back() + "\"";
    std::vector<std::string> next = query(alice, "[" + base + cursor + "}]");
    ASSERT_FALSE(next.empty());
    seen.insert(seen.end(), next.begin(), next.end());
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(post(alice, "/query", R"([{"kinds":[1],"before_id":")" + expected[0] + R"("}])").body,
            R"({"error":"before_id requires until to be set"})");
}

TEST_F(BridgeTest, DepthLimitReturnsAThreadsRepliesToThatDepth) {
  Keypair alice = engine::generate_keypair();
  const std::string ch = channel(alice, "open");
  auto c = client(alice);
  Event root = make_event(alice, 9, "root", {{"h", ch}});
  ASSERT_TRUE(c->publish(root).accepted);
  Event reply = make_event(alice, 9, "reply", {{"h", ch}, {"e", root.id_hex(), "", "root"}});
  ASSERT_TRUE(c->publish(reply).accepted);
  Event nested = make_event(alice, 9, "nested",
                            {{"h", ch}, {"e", root.id_hex(), "", "root"}, {"e", reply.id_hex(), "", "reply"}});
  ASSERT_TRUE(c->publish(nested).accepted);
  const std::string e = R"("#e":[")" + root.id_hex() + R"("])";
  EXPECT_EQ(query(alice, "[{" + e + R"(,"depth_limit":1}])"), std::vector<std::string>{reply.id_hex()});
  EXPECT_EQ(query(alice, "[{" + e + R"(,"depth_limit":2}])").size(), 2u);
  EXPECT_EQ(post(alice, "/query", R"([{"depth_limit":1}])").body, R"({"error":"depth_limit requires exactly one #e value"})");
}

TEST_F(BridgeTest, FeedTypesFillInOrderFromReadableChannels) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair(), carol = engine::generate_keypair();
  const std::string ch = channel(alice, "open");
  Event mention = make_event(alice, 9, "hi bob", {{"h", ch}, {"p", hex(bob)}});
  ASSERT_TRUE(client(alice)->publish(mention).accepted);
  EXPECT_EQ(query(bob, R"([{"feed_types":["mentions"]}])"), std::vector<std::string>{mention.id_hex()});
  EXPECT_EQ(query(carol, R"([{"feed_types":["mentions"]}])"), std::vector<std::string>{});
  std::vector<std::string> both = query(bob, R"([{"feed_types":["mentions","activity"],"limit":5}])");
  ASSERT_FALSE(both.empty());
  EXPECT_EQ(both[0], mention.id_hex());
  EXPECT_EQ(std::count(both.begin(), both.end(), mention.id_hex()), 1);  // de-duplicated
  EXPECT_EQ(post(bob, "/query", R"([{"feed_types":["gossip"]}])").status, 400);
}

// /count counts what /query with the same filters returns: a feed, a thread
// to a depth and a cursor narrow it, as they narrow the query.
TEST_F(BridgeTest, CountCountsWhatTheSameQueryReturns) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair(), carol = engine::generate_keypair();
  const std::string ch = channel(alice, "open");
  auto c = client(alice);
  const uint64_t t = unix_now() - 10;  // one second for all three, so a cursor at (t, ff…) passes none
  Event root = make_event(alice, 9, "hi bob", {{"h", ch}, {"p", hex(bob)}}, t);
  ASSERT_TRUE(c->publish(root).accepted);
  Event reply = make_event(alice, 9, "reply", {{"h", ch}, {"e", root.id_hex(), "", "root"}}, t);
  ASSERT_TRUE(c->publish(reply).accepted);
  Event nested = make_event(alice, 9, "nested", {{"h", ch}, {"e", root.id_hex(), "", "root"}, {"e", reply.id_hex(), "", "reply"}}, t);
  ASSERT_TRUE(c->publish(nested).accepted);
  for (const std::string& filters :
       {std::string(R"([{"feed_types":["mentions"]}])"),
        R"([{"#e":[")" + root.id_hex() + R"("],"depth_limit":1}])",
        R"([{"kinds":[9],"#h":[")" + ch + R"("],"until":)" + std::to_string(t) + R"(,"before_id":")" + std::string(64, 'f') +
            R"("}])"}) {
    for (const Keypair* who : {&alice, &bob, &carol}) {
      SCOPED_TRACE(filters);
      EXPECT_EQ(count(*who, filters), int64_t(query(*who, filters).size()));
    }
  }
  EXPECT_EQ(count(carol, R"([{"feed_types":["mentions"]}])"), 0);  // not every event carol may read
  EXPECT_EQ(count(bob, R"([{"feed_types":["mentions"]}])"), 1);
}

TEST_F(BridgeTest, PresenceLookupsAreRelaySignedAndOnlyForThoseSharingAChannel) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair(), carol = engine::generate_keypair();
  const std::string ch = channel(alice, "open");
  auto b = client(bob);
  ASSERT_TRUE(b->publish(make_event(bob, 9021, "", {{"h", ch}})).accepted);
  ASSERT_TRUE(b->publish(make_event(bob, 20001, "away")).accepted);
  const std::string lookup = R"([{"kinds":[20001],"authors":[")" + hex(bob) + R"("]}])";
  HttpReply r = post(alice, "/query", lookup);
  ASSERT_EQ(r.status, 200) << r.body;
  simdjson::dom::parser parser;
  simdjson::dom::element e = parser.parse(r.body).at(0);
  EXPECT_EQ(e["kind"].get_int64().value_unsafe(), 20001);
  EXPECT_EQ(e["content"].get_string().value_unsafe(), "away");
  EXPECT_EQ(simdjson::minify(e["tags"]), R"([["p",")" + hex(bob) + R"("]])");
  HttpReply info = http_get(relay_->port(), "/info", "application/nostr+json");
  EXPECT_NE(info.body.find(std::string(e["pubkey"].get_string().value_unsafe())), std::string::npos)
      << "not signed by the relay";
  EXPECT_EQ(query(carol, lookup), std::vector<std::string>{});  // shares no channel with bob
}

}  // namespace
}  // namespace buzz::test
