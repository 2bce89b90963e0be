// End-to-end tests of the rate limits (docs/reference/protocol.md §14) against the real
// binary, one suite per limit so that the others stay out of the way:
// frames per human connection per second, messages per author per minute by
// tier, and HTTP API calls per pubkey per minute. Each suite lowers its limit
// to a few uses; the denied case is checked beside the allowed one, and a
// refusal must leave nothing stored and the connection usable.
// The audit entries the refusals leave are checked in audit_e2e_test.cpp.
// A frame bucket refills by the relay's clock, which the frame suites move
// forward (docs/testing.md, "The test clock") instead of waiting.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "tests/e2e/api_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

std::string author_filter(const Keypair& key) { return R"({"kinds":[1],"authors":[")" + hex(key) + R"("]})"; }

// The ids of key's stored kind-1 events, read by a fresh connection.
std::vector<std::string> stored_notes(const RelayProcess& relay, const Keypair& key) {
  std::string error;
  auto reader = NostrClient::connect_authed(relay, engine::generate_keypair(), &error);
  EXPECT_NE(reader, nullptr) << error;
  std::vector<std::string> ids;
  if (!reader) return ids;
  for (const Event& e : reader->req("stored", author_filter(key)).events) ids.push_back(e.id_hex());
  return ids;
}

// Sends n REQs (sub ids prefix0 … prefixN-1) in one burst; the EOSE or
// CLOSED each one got, in order.
std::vector<RelayMessage> req_burst(NostrClient& c, const std::string& prefix, int n, const std::string& filter) {
  for (int i = 0; i < n; ++i) c.send(R"(["REQ",")" + prefix + std::to_string(i) + R"(",)" + filter + "]");
  std::vector<RelayMessage> replies;
  for (int i = 0; i < n; ++i) {
    const std::string sub = prefix + std::to_string(i);
    auto reply = c.wait_for([&](const RelayMessage& m) { return m.id == sub && (m.type == "EOSE" || m.type == "CLOSED"); });
    replies.push_back(reply.value_or(RelayMessage{}));
  }
  return replies;
}

// Declares key an agent (docs/reference/kinds.md 10100: a profile with an agent_type).
void become_agent(NostrClient& c, const Keypair& key) {
  ASSERT_TRUE(c.publish(make_event(key, 10100, R"({"agent_type":"goose"})")).accepted);
}

// --- frames per connection per second ------------------------------------------

class RateLimitFrames : public ApiFixture<RateLimitFrames> {
 public:
  static std::vector<std::string> relay_args() {
    return {"--human-ws-events-per-sec", "5", "--human-ws-events-burst", "5", "--human-reads-per-sec", "5",
            "--human-reads-burst", "5"};
  }
  static std::vector<std::pair<std::string, std::string>> relay_env() { return {{"BUZZ_TEST_CLOCK", "1"}}; }
};

TEST_F(RateLimitFrames, RequestsPastTheHumanLimitAreClosedAndTheConnectionSurvives) {
  Keypair alice = engine::generate_keypair();
  auto c = client(alice);
  ASSERT_TRUE(c);
  std::vector<RelayMessage> replies = req_burst(*c, "s", 7, author_filter(alice));
  for (size_t i = 0; i < replies.size(); ++i) {
    if (i < 5) {
      EXPECT_EQ(replies[i].type, "EOSE") << i;
    } else {
      EXPECT_EQ(replies[i].type, "CLOSED") << i;
      EXPECT_EQ(replies[i].text, "rate-limited: too many requests, retry in 1 s");
    }
  }
  std::string error;
  ASSERT_TRUE(relay_->advance_clock(1, &error)) << error;  // the bucket refills
  EXPECT_TRUE(c->req("after", author_filter(alice)).eose);
}

TEST_F(RateLimitFrames, EventsAndCountsPastTheirLimitsAreRefusedApartAndNothingIsStored) {
  Keypair alice = engine::generate_keypair();
  auto c = client(alice);
  ASSERT_TRUE(c);
  std::vector<Event> notes;
  for (int i = 0; i < 6; ++i) notes.push_back(make_event(alice, 1, "burst " + std::to_string(i)));
  for (const Event& e : notes) c->send(R"(["EVENT",)" + e.raw + "]");
  // Reads have their own bucket: the writes spent do not refuse them, until their own five are spent.
  for (int i = 0; i < 6; ++i) c->send(R"(["COUNT","n)" + std::to_string(i) + R"(",)" + author_filter(alice) + "]");
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(c->wait_ok(notes[size_t(i)].id_hex()).accepted) << i;
  OkReply refused = c->wait_ok(notes[5].id_hex());
  EXPECT_FALSE(refused.accepted);
  EXPECT_EQ(refused.reason, "rate-limited: too many events, retry in 1 s");
  for (int i = 0; i < 6; ++i) {
    auto count = c->wait_for([&](const RelayMessage& m) { return m.id == "n" + std::to_string(i); });
    ASSERT_TRUE(count) << i;
    EXPECT_EQ(count->type, i < 5 ? "COUNT" : "CLOSED") << i;
    if (i == 5) {
      EXPECT_EQ(count->text, "rate-limited: too many requests, retry in 1 s");
    }
  }

  std::vector<std::string> stored = stored_notes(*relay_, alice);
  EXPECT_EQ(stored.size(), 5u);
  EXPECT_EQ(std::count(stored.begin(), stored.end(), notes[5].id_hex()), 0);
  // The limit is the connection's: a second connection of the same author is not refused.
  auto again = client(alice);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->publish(make_event(alice, 1, "another connection")).accepted);
}

TEST_F(RateLimitFrames, AgentsHaveNoFrameLimit) {
  Keypair bot = engine::generate_keypair();
  auto c = client(bot);
  ASSERT_TRUE(c);
  become_agent(*c, bot);
  for (const RelayMessage& reply : req_burst(*c, "a", 8, author_filter(bot))) {
    EXPECT_EQ(reply.type, "EOSE") << reply.id << ": " << reply.text;
  }
}

// --- the frame bucket, and who is exempt ----------------------------------------

class RateLimitBurst : public ApiFixture<RateLimitBurst> {
 public:
  static const Keypair& owner() {
    static const Keypair key = engine::generate_keypair();
    return key;
  }
  static std::vector<std::string> relay_args() {
    return {"--owner", hex(owner()), "--human-ws-events-per-sec", "2", "--human-ws-events-burst", "12",
            "--human-reads-per-sec", "2", "--human-reads-burst", "12", "--human-messages-per-min", "3"};
  }
  static std::vector<std::pair<std::string, std::string>> relay_env() { return {{"BUZZ_TEST_CLOCK", "1"}}; }

  // Publishes n kind-1 notes; how many were accepted, and the last reason.
  static std::pair<int, std::string> publish_notes(NostrClient& c, const Keypair& key, int n) {
    int accepted = 0;
    std::string last;
    for (int i = 0; i < n; ++i) {
      OkReply ok = c.publish(make_event(key, 1, "note " + std::to_string(i)));
      accepted += ok.accepted;
      last = ok.reason;
    }
    return {accepted, last};
  }
  static int eoses(const std::vector<RelayMessage>& replies) {
    return int(std::count_if(replies.begin(), replies.end(), [](const RelayMessage& m) { return m.type == "EOSE"; }));
  }
};

TEST_F(RateLimitBurst, AConnectionOpensItsSubscriptionsAtOnceThenWaitsForTheRate) {
  Keypair alice = engine::generate_keypair();
  auto c = client(alice);
  ASSERT_TRUE(c);
  std::vector<RelayMessage> replies = req_burst(*c, "s", 13, author_filter(alice));
  for (size_t i = 0; i < replies.size(); ++i) {
    if (i < 12) {
      EXPECT_EQ(replies[i].type, "EOSE") << i;
    } else {
      EXPECT_EQ(replies[i].type, "CLOSED") << i;
      EXPECT_EQ(replies[i].text, "rate-limited: too many requests, retry in 1 s");
    }
  }
  std::string error;
  ASSERT_TRUE(relay_->advance_clock(1, &error)) << error;  // 2 per second: a frame's worth and more
  EXPECT_TRUE(c->req("after", author_filter(alice)).eose);
}

TEST_F(RateLimitBurst, AReplayPaysForTheEventsItSends) {
  // 500 notes to replay, by the owner (no limits).
  auto boss = client(owner());
  ASSERT_TRUE(boss);
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(boss->publish(make_event(owner(), 1, "history " + std::to_string(i))).accepted);
  Keypair reader = engine::generate_keypair();
  auto c = client(reader);
  ASSERT_TRUE(c);
  // One unit for the REQ and five for its 500 events: six of twelve are left
  // for the eight cheap REQs sent with it.
  c->send(R"(["REQ","big",{"kinds":[1],"authors":[")" + hex(owner()) + R"("],"limit":500}])");
  for (int i = 0; i < 8; ++i) c->send(R"(["REQ","small)" + std::to_string(i) + R"(",)" + author_filter(reader) + "]");
  auto big = c->wait_for([](const RelayMessage& m) { return m.id == "big" && m.type != "EVENT"; });
  ASSERT_TRUE(big);
  EXPECT_EQ(big->type, "EOSE");
  int eose = 0, closed = 0;
  for (int i = 0; i < 8; ++i) {
    auto reply = c->wait_for([&](const RelayMessage& m) { return m.id == "small" + std::to_string(i); });
    ASSERT_TRUE(reply);
    (reply->type == "EOSE" ? eose : closed)++;
  }
  EXPECT_EQ(eose, 6);
  EXPECT_EQ(closed, 2);
}

TEST_F(RateLimitBurst, TheOwnerAndAdminsHaveNoFrameOrMessageLimitAndOthersDo) {
  auto boss = client(owner());
  ASSERT_TRUE(boss);
  EXPECT_EQ(eoses(req_burst(*boss, "o", 20, author_filter(owner()))), 20);
  EXPECT_EQ(publish_notes(*boss, owner(), 5).first, 5);

  Keypair admin = engine::generate_keypair(), member = engine::generate_keypair();
  OkReply promoted = boss->publish(make_event(owner(), 9030, "", {{"p", hex(admin)}, {"role", "admin"}}));
  ASSERT_TRUE(promoted.accepted) << promoted.reason;
  ASSERT_TRUE(boss->publish(make_event(owner(), 9030, "", {{"p", hex(member)}})).accepted);
  auto a = client(admin);
  ASSERT_TRUE(a);
  EXPECT_EQ(eoses(req_burst(*a, "a", 20, author_filter(admin))), 20);
  EXPECT_EQ(publish_notes(*a, admin, 5).first, 5);

  // A plain relay member is held to the human limits: a burst of twice the
  // per-minute rate, then refused.
  auto m = client(member);
  ASSERT_TRUE(m);
  auto [accepted, reason] = publish_notes(*m, member, 7);
  EXPECT_EQ(accepted, 6);
  EXPECT_EQ(reason, "rate-limited: message rate exceeded (3/min)");
  auto m2 = client(member);  // a fresh connection: a full bucket
  ASSERT_TRUE(m2);
  EXPECT_EQ(eoses(req_burst(*m2, "m", 20, author_filter(member))), 12);
}

// --- messages per author per minute, by tier ---------------------------------

class RateLimitMessages : public ApiFixture<RateLimitMessages> {
 public:
  static const Keypair& platform_agent() {
    static const Keypair key = engine::generate_keypair();
    return key;
  }
  static std::vector<std::string> relay_args() {
    return {"--human-ws-events-per-sec", "0",  // frames are RateLimitFrames' business
            "--human-messages-per-min", "4", "--agent-standard-messages-per-min", "6",
            "--agent-platform-messages-per-min", "8", "--rate-limit-tiers", hex(platform_agent()) + "=agent-platform"};
  }

  // Publishes n kind-1 notes; the replies in order.
  static std::vector<OkReply> publish_notes(NostrClient& c, const Keypair& key, int n) {
    std::vector<OkReply> replies;
    for (int i = 0; i < n; ++i) replies.push_back(c.publish(make_event(key, 1, "note " + std::to_string(i))));
    return replies;
  }
  static int accepted(const std::vector<OkReply>& replies) {
    return int(std::count_if(replies.begin(), replies.end(), [](const OkReply& r) { return r.accepted; }));
  }
};

TEST_F(RateLimitMessages, AHumanPastTheLimitIsRefusedOnEveryConnectionAndNothingIsStored) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  auto c = client(alice);
  auto other = client(alice);
  auto b = client(bob);
  ASSERT_TRUE(c && other && b);
  EXPECT_EQ(accepted(publish_notes(*c, alice, 8)), 8);  // the burst: twice the per-minute rate
  Event fifth = make_event(alice, 1, "one too many");
  OkReply refused = other->publish(fifth);  // the limit is the author's, not the connection's
  EXPECT_FALSE(refused.accepted);
  EXPECT_EQ(refused.reason, "rate-limited: message rate exceeded (4/min)");
  OkReply reaction = c->publish(make_event(alice, 7, "+", {{"e", fifth.id_hex()}}));
  EXPECT_EQ(reaction.reason, "rate-limited: message rate exceeded (4/min)");
  // Not a message: a profile is still accepted, and another author is not limited.
  EXPECT_TRUE(c->publish(make_event(alice, 0, R"({"name":"alice"})")).accepted);
  EXPECT_TRUE(b->publish(make_event(bob, 1, "bob is fine")).accepted);

  std::vector<std::string> stored = stored_notes(*relay_, alice);
  EXPECT_EQ(stored.size(), 8u);
  EXPECT_EQ(std::count(stored.begin(), stored.end(), fifth.id_hex()), 0);
}

TEST_F(RateLimitMessages, AgentsGetTheirTierAndOperatorsAssignHigherOnes) {
  Keypair bot = engine::generate_keypair();
  auto agent = client(bot);
  auto platform = client(platform_agent());
  ASSERT_TRUE(agent && platform);
  become_agent(*agent, bot);
  std::vector<OkReply> standard = publish_notes(*agent, bot, 13);
  EXPECT_EQ(accepted(standard), 12);
  EXPECT_EQ(standard.back().reason, "rate-limited: message rate exceeded (6/min)");
  std::vector<OkReply> assigned = publish_notes(*platform, platform_agent(), 17);
  EXPECT_EQ(accepted(assigned), 16);
  EXPECT_EQ(assigned.back().reason, "rate-limited: message rate exceeded (8/min)");
}

TEST_F(RateLimitMessages, HttpSubmissionsCountTooAndAnswer429WithRetryAfter) {
  Keypair carol = engine::generate_keypair();
  auto c = client(carol);
  ASSERT_TRUE(c);
  EXPECT_EQ(accepted(publish_notes(*c, carol, 8)), 8);
  Event over = make_event(carol, 1, "over http");
  HttpReply r = signed_call(carol, "POST", "/api/events", over.raw);
  EXPECT_EQ(r.status, 429) << r.body;
  EXPECT_EQ(r.body, R"j({"error":"rate-limited: message rate exceeded (4/min)"})j");
  ASSERT_TRUE(r.headers.count("retry-after"));
  int retry = std::stoi(r.headers["retry-after"]);
  EXPECT_GE(retry, 1);
  EXPECT_LE(retry, 15) << "one message's interval at 4/min";
  EXPECT_EQ(stored_notes(*relay_, carol).size(), 8u);
  EXPECT_NE(http_get(relay_->port(), "/metrics").body.find("buzz_rate_limited_total{limit=\"msg\"} "), std::string::npos);
}

// --- HTTP API calls per pubkey per minute --------------------------------------

class RateLimitApi : public ApiFixture<RateLimitApi> {
 public:
  static std::vector<std::string> relay_args() {
    return {"--human-api-calls-per-min", "3", "--agent-standard-api-calls-per-min", "5"};
  }
};

TEST_F(RateLimitApi, CallsPastTheLimitAnswer429AndOtherCallersAreUnaffected) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(get(alice, "/api/channels").status, 200) << i;
  HttpReply refused = get(alice, "/api/channels");
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.body, R"j({"error":"rate-limited: API call rate exceeded (3/min)"})j");
  EXPECT_TRUE(refused.headers.count("retry-after"));
  // Every route counts: a different one is refused as well.
  EXPECT_EQ(get(alice, "/api/users/me/profile").status, 429);
  EXPECT_EQ(get(bob, "/api/channels").status, 200);
  // Unauthenticated calls name no pubkey and are not counted against anyone.
  EXPECT_EQ(http_get(relay_->port(), "/health").status, 200);
}

TEST_F(RateLimitApi, AgentsGetTheAgentLimit) {
  Keypair bot = engine::generate_keypair();
  {
    auto c = client(bot);
    ASSERT_TRUE(c);
    become_agent(*c, bot);
  }
  for (int i = 0; i < 5; ++i) EXPECT_EQ(get(bot, "/api/channels").status, 200) << i;
  EXPECT_EQ(get(bot, "/api/channels").status, 429);
}

}  // namespace
}  // namespace buzz::test
