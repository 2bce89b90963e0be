// End-to-end tests of the REST message reads against the real binary:
// GET /api/channels/{id}/messages (top-level selection, thread summaries,
// reaction counts, both pagination directions, the kinds filter),
// /api/channels/{id}/threads/{event_id} and /api/messages/{id}/reactions —
// each with its refused cases, and none of them readable by a non-member of a
// private channel.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/api_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

class ApiMessagesTest : public ApiFixture<ApiMessagesTest> {
 protected:
  // The ids (field `id_field`) of the objects in the array at a JSON pointer, in order.
  static std::vector<std::string> ids(const std::string& body, const char* pointer, const char* id_field = "event_id") {
    simdjson::dom::parser parser;
    std::vector<std::string> out;
    simdjson::dom::array rows;
    if (parser.parse(body).at_pointer(pointer).get(rows)) return out;
    for (simdjson::dom::element row : rows) out.emplace_back(std::string_view(row[id_field]));
    return out;
  }
};

// A channel with three top-level messages a minute apart, a reply thread on
// the first, and reactions.
struct Conversation {
  std::string channel;
  Event first, second, third, reply, nested;
};

Conversation converse(NostrClient& owner_client, const Keypair& owner, NostrClient& peer_client, const Keypair& peer,
                      const std::string& channel, const std::string& visibility) {
  Conversation c;
  c.channel = channel;
  const uint64_t t = unix_now() - 300;
  EXPECT_TRUE(owner_client.publish(make_event(owner, 9007, "", {{"h", channel}, {"name", "talk"}, {"visibility", visibility}})).accepted);
  if (visibility == "private") {
    EXPECT_TRUE(owner_client.publish(make_event(owner, 9000, "", {{"h", channel}, {"p", hex(peer), "member"}})).accepted);
  } else {
    EXPECT_TRUE(peer_client.publish(make_event(peer, 9021, "", {{"h", channel}})).accepted);
  }
  c.first = make_event(owner, 9, "first", {{"h", channel}}, t);
  c.second = make_event(owner, 9, "second", {{"h", channel}}, t + 60);
  c.third = make_event(peer, 9, "third", {{"h", channel}}, t + 120);
  for (const Event* e : {&c.first, &c.second}) EXPECT_TRUE(owner_client.publish(*e).accepted);
  EXPECT_TRUE(peer_client.publish(c.third).accepted);
  c.reply = make_event(peer, 9, "a reply", {{"h", channel}, {"e", c.first.id_hex(), "", "root"}}, t + 130);
  EXPECT_TRUE(peer_client.publish(c.reply).accepted);
  c.nested = make_event(owner, 9, "nested", {{"h", channel}, {"e", c.first.id_hex(), "", "root"}, {"e", c.reply.id_hex(), "", "reply"}}, t + 140);
  EXPECT_TRUE(owner_client.publish(c.nested).accepted);
  EXPECT_TRUE(peer_client.publish(make_event(peer, 7, "👍", {{"e", c.first.id_hex()}}, t + 150)).accepted);
  EXPECT_TRUE(owner_client.publish(make_event(owner, 7, "👍", {{"e", c.first.id_hex()}}, t + 151)).accepted);
  EXPECT_TRUE(owner_client.publish(make_event(owner, 7, "", {{"e", c.second.id_hex()}}, t + 152)).accepted);
  return c;
}

TEST_F(ApiMessagesTest, MessagesAreTopLevelWithSummariesAndReactions) {
  Keypair owner = engine::generate_keypair(), peer = engine::generate_keypair();
  auto oc = client(owner), pc = client(peer);
  Conversation c = converse(*oc, owner, *pc, peer, "c1000000-0000-4000-8000-" + hex(owner).substr(0, 12), "open");
  HttpReply r = get(peer, "/api/channels/" + c.channel + "/messages?kinds=9");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(ids(r.body, "/messages"), (std::vector<std::string>{c.third.id_hex(), c.second.id_hex(), c.first.id_hex()}));
  EXPECT_NE(r.body.find(R"("thread_summary":{"descendant_count":2,"last_reply_at":)" + std::to_string(c.nested.created_at) +
                        R"(,"participants":[")" + hex(owner) + R"(",")" + hex(peer) + R"("],"reply_count":1})"),
            std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("reactions":[{"count":2,"emoji":"👍"}])"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("reactions":[{"count":1,"emoji":"+"}])"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("next_cursor":)" + std::to_string(c.first.created_at)), std::string::npos);
}

TEST_F(ApiMessagesTest, MessagesPageBothWays) {
  Keypair owner = engine::generate_keypair(), peer = engine::generate_keypair();
  auto oc = client(owner), pc = client(peer);
  Conversation c = converse(*oc, owner, *pc, peer, "c2000000-0000-4000-8000-" + hex(owner).substr(0, 12), "open");
  const std::string base = "/api/channels/" + c.channel + "/messages?kinds=9&limit=2";
  HttpReply page1 = get(owner, base);
  EXPECT_EQ(ids(page1.body, "/messages"), (std::vector<std::string>{c.third.id_hex(), c.second.id_hex()}));
  HttpReply page2 = get(owner, base + "&before=" + std::to_string(c.second.created_at));
  EXPECT_EQ(ids(page2.body, "/messages"), (std::vector<std::string>{c.first.id_hex()}));
  HttpReply ascending = get(owner, base + "&since=" + std::to_string(c.first.created_at - 1));
  EXPECT_EQ(ids(ascending.body, "/messages"), (std::vector<std::string>{c.first.id_hex(), c.second.id_hex()}));

  // The ends of the integer range are answered, not overflowed (the sanitizer build aborts on overflow).
  EXPECT_EQ(ids(get(owner, base + "&since=9223372036854775807").body, "/messages"), std::vector<std::string>{});
  EXPECT_EQ(ids(get(owner, base + "&since=-9223372036854775808").body, "/messages"),
            (std::vector<std::string>{c.first.id_hex(), c.second.id_hex()}));
  EXPECT_EQ(ids(get(owner, base + "&before=-9223372036854775808").body, "/messages"), std::vector<std::string>{});

  HttpReply bad_kinds = get(owner, "/api/channels/" + c.channel + "/messages?kinds=9,x");
  EXPECT_EQ(bad_kinds.status, 400);
  EXPECT_EQ(get(owner, "/api/channels/not-a-uuid/messages").body, R"({"error":"invalid channel UUID"})");
}

TEST_F(ApiMessagesTest, ThreadListsDescendantsOldestFirst) {
  Keypair owner = engine::generate_keypair(), peer = engine::generate_keypair();
  auto oc = client(owner), pc = client(peer);
  Conversation c = converse(*oc, owner, *pc, peer, "c3000000-0000-4000-8000-" + hex(owner).substr(0, 12), "open");
  const std::string path = "/api/channels/" + c.channel + "/threads/" + c.first.id_hex();
  HttpReply r = get(peer, path);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(ids(r.body, "/replies"), (std::vector<std::string>{c.reply.id_hex(), c.nested.id_hex()}));
  EXPECT_NE(r.body.find(R"("depth":2)"), std::string::npos);
  EXPECT_NE(r.body.find(R"("parent_event_id":")" + c.reply.id_hex()), std::string::npos);
  EXPECT_NE(r.body.find(R"("total_replies":2)"), std::string::npos);
  EXPECT_EQ(ids(get(peer, path + "?depth_limit=1").body, "/replies"), (std::vector<std::string>{c.reply.id_hex()}));

  // The cursor is the last reply's created_at, 8 bytes big-endian in hex.
  char cursor[17];
  snprintf(cursor, sizeof cursor, "%016llx", static_cast<unsigned long long>(c.nested.created_at));
  EXPECT_NE(r.body.find(std::string(R"("next_cursor":")") + cursor), std::string::npos) << r.body;
  EXPECT_TRUE(ids(get(peer, path + "?cursor=" + cursor).body, "/replies").empty());
  snprintf(cursor, sizeof cursor, "%016llx", static_cast<unsigned long long>(c.reply.created_at));
  EXPECT_EQ(ids(get(peer, path + "?cursor=" + cursor).body, "/replies"), (std::vector<std::string>{c.nested.id_hex()}));
  EXPECT_EQ(get(peer, path + "?cursor=zz").body, R"({"error":"invalid cursor hex"})");
  EXPECT_EQ(get(peer, path + "?cursor=00ff").body, R"j({"error":"cursor must be 8 bytes (timestamp)"})j");
  EXPECT_EQ(get(peer, "/api/channels/" + c.channel + "/threads/" + std::string(64, 'a')).status, 404);
  EXPECT_EQ(get(peer, "/api/channels/" + c.channel + "/threads/xyz").body, R"({"error":"invalid event_id hex"})");
}

TEST_F(ApiMessagesTest, ReactionsAreGroupedByEmoji) {
  Keypair owner = engine::generate_keypair(), peer = engine::generate_keypair();
  auto oc = client(owner), pc = client(peer);
  ASSERT_TRUE(pc->publish(make_event(peer, 0, R"({"display_name":"Pat"})")).accepted);
  Conversation c = converse(*oc, owner, *pc, peer, "c4000000-0000-4000-8000-" + hex(owner).substr(0, 12), "open");
  HttpReply r = get(owner, "/api/messages/" + c.first.id_hex() + "/reactions");
  ASSERT_EQ(r.status, 200) << r.body;
  // The reactor's profile name, or the first 8 hex characters of a pubkey without one (docs/reference/rest-api.md §3.5).
  EXPECT_NE(r.body.find(R"({"count":2,"emoji":"👍","users":[{"display_name":"Pat")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"({"display_name":")" + hex(owner).substr(0, 8) + "\""), std::string::npos) << r.body;
  EXPECT_LT(r.body.find(hex(peer)), r.body.find(hex(owner))) << "users in reaction order";
  EXPECT_EQ(get(owner, "/api/messages/xyz/reactions").body, R"({"error":"invalid event_id: not valid hex"})");
  EXPECT_EQ(get(owner, "/api/messages/abcd/reactions").body, R"j({"error":"invalid event_id: must be 32 bytes (64 hex chars)"})j");
  EXPECT_EQ(get(owner, "/api/messages/" + std::string(64, 'c') + "/reactions").status, 404);
}

TEST_F(ApiMessagesTest, PrivateChannelReadsAreForMembersOnly) {
  Keypair owner = engine::generate_keypair(), peer = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto oc = client(owner), pc = client(peer);
  Conversation c = converse(*oc, owner, *pc, peer, "c5000000-0000-4000-8000-" + hex(owner).substr(0, 12), "private");
  EXPECT_EQ(get(peer, "/api/channels/" + c.channel + "/messages").status, 200);
  for (const std::string& path : {"/api/channels/" + c.channel + "/messages",
                                  "/api/channels/" + c.channel + "/threads/" + c.first.id_hex()}) {
    HttpReply r = get(outsider, path);
    EXPECT_EQ(r.status, 403) << path;
    EXPECT_EQ(r.body, R"({"error":"not a member of this channel"})") << path;
    EXPECT_EQ(r.body.find("first"), std::string::npos);
  }
  // An event the caller may not read is absent (docs/access.md).
  HttpReply reactions = get(outsider, "/api/messages/" + c.first.id_hex() + "/reactions");
  EXPECT_EQ(reactions.status, 404);
  EXPECT_EQ(reactions.body, R"({"error":"event not found"})");
  // No auth at all.
  EXPECT_EQ(http_call(relay_->port(), "GET", "/api/channels/" + c.channel + "/messages").status, 401);
}

TEST_F(ApiMessagesTest, FeedShowsMentionsAndActivityFromReadableChannelsOnly) {
  Keypair me = engine::generate_keypair(), owner = engine::generate_keypair(), agent = engine::generate_keypair();
  auto oc = client(owner), mc = client(me), ac = client(agent);
  const std::string open = "c6000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  const std::string secret = "c7000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(oc->publish(make_event(owner, 9007, "", {{"h", open}, {"name", "lobby"}})).accepted);
  ASSERT_TRUE(oc->publish(make_event(owner, 9007, "", {{"h", secret}, {"name", "vault"}, {"visibility", "private"}})).accepted);
  ASSERT_TRUE(mc->publish(make_event(me, 9021, "", {{"h", open}})).accepted);
  ASSERT_TRUE(ac->publish(make_event(agent, 9021, "", {{"h", open}})).accepted);
  Event mention = make_event(owner, 9, "hey you", {{"h", open}, {"p", hex(me)}});
  Event hidden = make_event(owner, 9, "about you, privately", {{"h", secret}, {"p", hex(me)}});
  Event job = make_event(agent, 43001, "build it", {{"h", open}, {"p", hex(agent)}});
  ASSERT_TRUE(oc->publish(mention).accepted);
  ASSERT_TRUE(oc->publish(hidden).accepted);
  ASSERT_TRUE(ac->publish(job).accepted);

  HttpReply r = get(me, "/api/feed");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(ids(r.body, "/feed/mentions", "id"),
            (std::vector<std::string>{mention.id_hex()}));
  EXPECT_NE(r.body.find(R"("category":"mention","channel_id":")" + open + R"(","channel_name":"lobby")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("category":"agent_activity")"), std::string::npos);
  EXPECT_EQ(r.body.find(hidden.id_hex()), std::string::npos) << "a private channel's mention reached a non-member";
  EXPECT_EQ(r.body.find("privately"), std::string::npos);
  HttpReply only = get(me, "/api/feed?types=mentions");
  EXPECT_EQ(only.body.find("\"activity\""), std::string::npos) << only.body;
  EXPECT_NE(only.body.find(R"("total":1)"), std::string::npos) << only.body;
  EXPECT_EQ(get(me, "/api/feed?limit=x").status, 400);
}

// A since-only page is the oldest messages after `since`, even when more
// than one newest-first scan (10,000 rows) lies between them and now.
class ApiMessagesBusyTest : public ApiFixture<ApiMessagesBusyTest> {
 public:
  static std::vector<std::string> relay_args() { return {"--rate-limits", "false"}; }
};

TEST_F(ApiMessagesBusyTest, SincePagesStartAtTheOldestMessageOfABusyChannel) {
  Keypair owner = engine::generate_keypair();
  auto c = client(owner);
  const std::string ch = "c5000000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "busy"}})).accepted);
  const uint64_t now = unix_now();
  std::vector<Event> events;
  for (int i = 0; i < 60; ++i) events.push_back(make_event(owner, 9, "early " + std::to_string(i), {{"h", ch}}, now - 850 + uint64_t(i)));
  for (int i = 0; i < 10100; ++i) {
    events.push_back(make_event(owner, 9, "late " + std::to_string(i), {{"h", ch}}, now - 700 + uint64_t(i / 15)));
  }
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_TRUE(c->send("[\"EVENT\"," + events[i].raw + "]"));
    if (i % 500 != 499 && i != events.size() - 1) continue;
    for (size_t j = i - i % 500; j <= i; ++j) ASSERT_TRUE(c->wait_ok(events[j].id_hex(), 10000).accepted) << j;
  }
  HttpReply page = get(owner, "/api/channels/" + ch + "/messages?limit=50&since=" + std::to_string(now - 851));
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("\"early 0\""), std::string::npos) << page.body.substr(0, 300);
  EXPECT_NE(page.body.find("\"early 49\""), std::string::npos);
  EXPECT_EQ(page.body.find("\"early 50\""), std::string::npos);
  EXPECT_EQ(page.body.find("\"late "), std::string::npos);
  EXPECT_LT(page.body.find("\"early 0\""), page.body.find("\"early 1\"")) << "oldest first";
}

}  // namespace
}  // namespace buzz::test
