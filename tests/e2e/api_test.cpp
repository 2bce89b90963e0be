// End-to-end tests of the REST API against the real binary: NIP-98 auth with
// each refused case (none, stale, wrong URL, wrong method, replayed);
// GET /api/events/{id}, which answers 404 for every event the caller may not
// read — a private channel's message, a gift wrap — exactly as for a missing
// one; the channel detail and member list (403 for a non-member of a private
// channel, existing or not); and presence.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/api_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

class ApiTest : public ApiFixture<ApiTest> {
};

TEST_F(ApiTest, GetEventReturnsTheStoredJson) {
  Keypair key = engine::generate_keypair();
  Event note = make_event(key, 1, "over http");
  ASSERT_TRUE(client(key)->publish(note).accepted);
  HttpReply r = get(engine::generate_keypair(), "/api/events/" + note.id_hex());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, note.raw);
  EXPECT_EQ(r.headers["content-type"], "application/json");
}

TEST_F(ApiTest, Nip98RefusalsAre401) {
  Keypair key = engine::generate_keypair();
  const std::string path = "/api/events/" + std::string(64, 'a');
  HttpReply none = http_call(relay_->port(), "GET", path);
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body, R"({"error":"authentication required"})");
  HttpReply stale = http_call(relay_->port(), "GET", path,
                              {{"Authorization", nip98_header(key, url(path), "GET", "", unix_now() - 120)}});
  EXPECT_EQ(stale.status, 401);
  EXPECT_EQ(stale.body, R"({"error":"NIP-98: event too old or too new"})");
  HttpReply other_url = http_call(relay_->port(), "GET", path,
                                  {{"Authorization", nip98_header(key, url("/api/events/other"), "GET")}});
  EXPECT_EQ(other_url.status, 401);
  EXPECT_EQ(other_url.body, R"({"error":"NIP-98: u tag does not match the request URL"})");
  HttpReply other_method = http_call(relay_->port(), "GET", path, {{"Authorization", nip98_header(key, url(path), "POST")}});
  EXPECT_EQ(other_method.status, 401);
  EXPECT_EQ(other_method.body, R"({"error":"NIP-98: method tag does not match the request"})");
  const std::string header = nip98_header(key, url(path), "GET");
  EXPECT_EQ(http_call(relay_->port(), "GET", path, {{"Authorization", header}}).status, 404);  // authenticated
  HttpReply replay = http_call(relay_->port(), "GET", path, {{"Authorization", header}});
  EXPECT_EQ(replay.status, 401);
  EXPECT_EQ(replay.body, R"({"error":"NIP-98: replay detected"})");
}

// A header dated 60 s ahead verifies for 120 s; its id is kept as long (the
// window itself is tested on the cache, tests/server/access/nip98_test.cpp).
TEST_F(ApiTest, AFutureDatedNip98HeaderIsAcceptedOnce) {
  Keypair key = engine::generate_keypair();
  const std::string path = "/api/events/" + std::string(64, 'c');
  const std::string header = nip98_header(key, url(path), "GET", "", unix_now() + 59);
  EXPECT_EQ(http_call(relay_->port(), "GET", path, {{"Authorization", header}}).status, 404);  // authenticated
  HttpReply replay = http_call(relay_->port(), "GET", path, {{"Authorization", header}});
  EXPECT_EQ(replay.status, 401);
  EXPECT_EQ(replay.body, R"({"error":"NIP-98: replay detected"})");
}

TEST_F(ApiTest, BadIdIs400AndUnknownIs404) {
  Keypair key = engine::generate_keypair();
  HttpReply bad = get(key, "/api/events/xyz");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, R"({"error":"invalid event ID"})");
  HttpReply unknown = get(key, "/api/events/" + std::string(64, 'b'));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body, R"({"error":"event not found"})");
}

TEST_F(ApiTest, PrivateChannelMessageIs404ForANonMember) {
  Keypair owner = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto c = client(owner);
  const std::string ch = "a9100000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "private"}, {"visibility", "private"}})).accepted);
  Event secret = make_event(owner, 9, "members only", {{"h", ch}});
  ASSERT_TRUE(c->publish(secret).accepted);
  HttpReply denied = get(outsider, "/api/events/" + secret.id_hex());
  EXPECT_EQ(denied.status, 404);
  EXPECT_EQ(denied.body, R"({"error":"event not found"})");
  HttpReply member = get(owner, "/api/events/" + secret.id_hex());
  EXPECT_EQ(member.status, 200);
  EXPECT_EQ(member.body, secret.raw);
}

TEST_F(ApiTest, GiftWrapIsNotReadableById) {
  Keypair recipient = engine::generate_keypair(), wrapper = engine::generate_keypair();
  Event wrap = make_event(wrapper, 1059, "ciphertext", {{"p", hex(recipient)}});
  ASSERT_TRUE(client(recipient)->publish(wrap).accepted);
  EXPECT_EQ(get(recipient, "/api/events/" + wrap.id_hex()).status, 404);
}

TEST_F(ApiTest, ChannelDetailAndMembersAreForThoseWhoMayRead) {
  Keypair owner = engine::generate_keypair(), guest = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto c = client(owner);
  const std::string ch = "a9200000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "plans"}, {"about", "roadmap"},
                                                       {"visibility", "private"}})).accepted);
  ASSERT_TRUE(c->publish(make_event(owner, 9000, "", {{"h", ch}, {"p", hex(guest)}, {"role", "guest"}})).accepted);
  ASSERT_TRUE(c->publish(make_event(owner, 9002, "", {{"h", ch}, {"topic", "q3"}})).accepted);

  HttpReply detail = get(guest, "/api/channels/" + ch);
  ASSERT_EQ(detail.status, 200) << detail.body;
  for (const std::string& field : std::vector<std::string>{R"("name":"plans")", R"("description":"roadmap")", R"("visibility":"private")",
                                   R"("channel_type":"stream")", R"("topic":"q3")", R"("member_count":2)",
                                   R"("created_by":")" + hex(owner) + "\"", R"("archived_at":null)"}) {
    EXPECT_NE(detail.body.find(field), std::string::npos) << field << " in " << detail.body;
  }
  HttpReply members = get(guest, "/api/channels/" + ch + "/members");
  ASSERT_EQ(members.status, 200) << members.body;
  size_t owner_at = members.body.find(hex(owner)), guest_at = members.body.find(hex(guest));
  EXPECT_NE(owner_at, std::string::npos);
  EXPECT_LT(owner_at, guest_at);  // join order
  EXPECT_NE(members.body.find(R"("role":"guest")"), std::string::npos);

  for (const std::string& path : std::vector<std::string>{"/api/channels/" + ch, "/api/channels/" + ch + "/members",
                                  std::string("/api/channels/a9200000-0000-4000-8000-ffffffffffff")}) {
    HttpReply denied = get(outsider, path);
    EXPECT_EQ(denied.status, 403) << path;
    EXPECT_EQ(denied.body, R"({"error":"not a member of this channel"})");
  }
  EXPECT_EQ(get(outsider, "/api/channels/not-a-uuid").status, 400);
}

TEST_F(ApiTest, ChannelListShowsReadableChannelsOnlyAndCanvasTheNewestSave) {
  Keypair owner = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto c = client(owner);
  const std::string secret = "a9400000-0000-4000-8000-" + hex(owner).substr(0, 12);
  const std::string open = "a9400000-0000-4000-8001-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", secret}, {"name", "b-secret"}, {"visibility", "private"}})).accepted);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", open}, {"name", "a-open"}})).accepted);
  HttpReply mine = get(owner, "/api/channels?member=true");
  ASSERT_EQ(mine.status, 200) << mine.body;
  size_t open_at = mine.body.find(open), secret_at = mine.body.find(secret);
  ASSERT_NE(secret_at, std::string::npos);
  EXPECT_LT(open_at, secret_at);  // by name within streams
  EXPECT_EQ(get(owner, "/api/channels?visibility=private").body.find(open), std::string::npos);
  HttpReply theirs = get(outsider, "/api/channels");
  EXPECT_EQ(theirs.status, 200);
  EXPECT_NE(theirs.body.find(open), std::string::npos);
  EXPECT_EQ(theirs.body.find(secret), std::string::npos) << "a private channel listed for a non-member";
  EXPECT_EQ(get(outsider, "/api/channels?member=true").body.find(open), std::string::npos);

  EXPECT_EQ(get(owner, "/api/channels/" + secret + "/canvas").body, R"({"content":null})");
  uint64_t now = unix_now();
  ASSERT_TRUE(c->publish(make_event(owner, 40100, "# v1", {{"h", secret}}, now - 2)).accepted);
  ASSERT_TRUE(c->publish(make_event(owner, 40100, "# v2", {{"h", secret}}, now - 1)).accepted);
  HttpReply canvas = get(owner, "/api/channels/" + secret + "/canvas");
  EXPECT_EQ(canvas.body, R"({"author":")" + hex(owner) + R"(","content":"# v2","updated_at":)" + std::to_string(now - 1) + "}");
  EXPECT_EQ(get(outsider, "/api/channels/" + secret + "/canvas").status, 403);
}

TEST_F(ApiTest, PresenceIsVisibleToThoseSharingAChannel) {
  Keypair online = engine::generate_keypair(), peer = engine::generate_keypair(), stranger = engine::generate_keypair();
  auto c = client(online);
  const std::string ch = "a9300000-0000-4000-8000-" + hex(online).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(online, 9007, "", {{"h", ch}, {"name", "team"}})).accepted);
  ASSERT_TRUE(client(peer)->publish(make_event(peer, 9021, "", {{"h", ch}})).accepted);
  ASSERT_TRUE(c->publish(make_event(online, 20001, "away")).accepted);
  const std::string path = "/api/presence?pubkeys=" + hex(online) + ",%20" + hex(stranger) + ",nothex";
  HttpReply r = get(peer, path);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("\"" + hex(online) + R"(":"away")"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"" + hex(stranger) + R"(":"offline")"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("nothex"), std::string::npos);
  HttpReply hidden = get(stranger, "/api/presence?pubkeys=" + hex(online));
  EXPECT_EQ(hidden.body, "{\"" + hex(online) + R"(":"offline"})");
  EXPECT_EQ(get(peer, "/api/presence").body, "{}");
}

// docs/reference/protocol.md §12.1: when a pubkey's last connection closes, its status goes
// and the relay says so with a signed 20001 "offline" naming it in a p tag,
// delivered like the user's own presence: to those sharing a channel.
TEST_F(ApiTest, LastConnectionClosingAnnouncesOffline) {
  Keypair alice = engine::generate_keypair(), bob = engine::generate_keypair(), carol = engine::generate_keypair();
  auto b = client(bob);
  const std::string ch = "a9400000-0000-4000-8000-" + hex(bob).substr(0, 12);
  ASSERT_TRUE(b->publish(make_event(bob, 9007, "", {{"h", ch}, {"name", "team"}})).accepted);
  auto a = client(alice);
  ASSERT_TRUE(a->publish(make_event(alice, 9021, "", {{"h", ch}})).accepted);
  auto c = client(carol);
  ASSERT_TRUE(b->req("presence", R"({"kinds":[20001]})").eose);
  ASSERT_TRUE(c->req("presence", R"({"kinds":[20001]})").eose);
  ASSERT_TRUE(a->publish(make_event(alice, 20001, "online")).accepted);
  ASSERT_TRUE(b->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.event.content == "online"; }));
  a.reset();  // alice's only connection
  auto offline = b->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.event.content == "offline"; });
  ASSERT_TRUE(offline) << "no offline announcement";
  EXPECT_EQ(offline->event.first_tag_value("p"), hex(alice));
  EXPECT_NE(offline->event.pubkey, alice.pubkey) << "signed by the relay";
  EXPECT_FALSE(c->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; }, 300)) << "carol shares no channel";
  EXPECT_EQ(get(bob, "/api/presence?pubkeys=" + hex(alice)).body, "{\"" + hex(alice) + R"(":"offline"})");
}

TEST_F(ApiTest, PutPresenceSetsTheCallersStatus) {
  Keypair me = engine::generate_keypair();
  auto put = [&](const std::string& body) {
    return http_call(relay_->port(), "PUT", "/api/presence",
                     {{"Authorization", nip98_header(me, url("/api/presence"), "PUT", body)},
                      {"Content-Type", "application/json"}},
                     body);
  };
  HttpReply away = put(R"({"status":"away"})");
  ASSERT_EQ(away.status, 200) << away.body;
  EXPECT_EQ(away.body, R"({"status":"away","ttl_seconds":90})");
  EXPECT_EQ(get(me, "/api/presence?pubkeys=" + hex(me)).body, "{\"" + hex(me) + R"(":"away"})");
  EXPECT_EQ(put(R"({"status":"offline"})").body, R"({"status":"offline","ttl_seconds":0})");
  EXPECT_EQ(get(me, "/api/presence?pubkeys=" + hex(me)).body, "{\"" + hex(me) + R"(":"offline"})");
  HttpReply bad = put(R"({"status":"busy"})");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(put("not json").status, 400);
  // The body is signed: a payload hash for another body is refused.
  HttpReply forged = http_call(relay_->port(), "PUT", "/api/presence",
                               {{"Authorization", nip98_header(me, url("/api/presence"), "PUT", R"({"status":"away"})")}},
                               R"({"status":"online"})");
  EXPECT_EQ(forged.status, 401);
  EXPECT_EQ(forged.body, R"({"error":"NIP-98: payload hash does not match the body"})");
}

}  // namespace
}  // namespace buzz::test
