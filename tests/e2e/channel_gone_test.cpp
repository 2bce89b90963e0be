// End-to-end tests of a channel's group state going away for a reader: the
// channel deleted (9008), or turned private (9002) while she is not in it. No
// new 39000 tells her (she may not read it), so the relay sends her global
// subscriptions naming kind 5 one relay-signed, unstored kind 5 deleting the
// channel's 39000–39002 (docs/reference/kinds.md §4.13): only to those who could
// read the channel before and cannot after. The fixture is in channel_fixture.h.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>
#include <vector>

#include "engine/event.h"
#include "tests/e2e/channel_fixture.h"
#include "tests/e2e/nostr_client.h"
#include "tools/client/relay_auth.h"

namespace buzz::test {
namespace {

using engine::Event;

// The filter a client follows its channel list with: the group state and its going.
std::string list_filter() {
  const std::string since = std::to_string(unix_now());
  return R"({"kinds":[39000],"since":)" + since + R"(},{"kinds":[5],"#k":["39000"],"since":)" + since + "}";
}

// A session authenticated with an API token that reaches only `channel`.
std::unique_ptr<NostrClient> token_session(const RelayProcess& relay, const Peer& user, const std::string& channel) {
  const std::string path = "/api/tokens";
  const std::string body = R"({"name":"one channel","scopes":["messages:read"],"channel_ids":[")" + channel + R"("]})";
  const std::string url = "http://127.0.0.1:" + std::to_string(relay.port()) + path;
  HttpReply r =
      http_call(relay.port(), "POST", path, {{"Authorization", nip98_header(user.key, url, "POST", body)}}, body);
  EXPECT_EQ(r.status, 201) << r.body;
  simdjson::dom::parser parser;
  std::string_view token;
  if (parser.parse(r.body)["token"].get(token)) return nullptr;
  std::string error;
  auto c = NostrClient::connect(relay, &error);
  EXPECT_NE(c, nullptr) << error;
  if (!c) return c;
  OkReply ok = c->send_auth(client::auth_event(user.key, c->relay_url(), c->challenge(), std::string(token)));
  EXPECT_TRUE(ok.accepted) << ok.reason;
  return c;
}

class ChannelGoneTest : public ChannelTest {
 protected:
  // The relay's "gone" for this channel on subscription `sub`: a kind 5 it
  // signed, deleting the channel's 39000–39002 by address.
  auto gone(const std::string& channel, const std::string& sub = "list") const {
    const std::string address = ":" + relay_pubkey() + ":" + channel;
    return [=](const RelayMessage& m) {
      return m.type == "EVENT" && m.id == sub && m.event.kind == 5 && m.event.pubkey_hex() == relay_pubkey() &&
             has_tag(m.event, {"a", "39000" + address}) && has_tag(m.event, {"a", "39001" + address}) &&
             has_tag(m.event, {"a", "39002" + address}) && has_tag(m.event, {"k", "39000"});
    };
  }
  auto any_gone(const std::string& channel) const {
    return [=](const RelayMessage& m) {
      return m.type == "EVENT" && m.event.kind == 5 && m.event.raw.find(channel) != std::string::npos;
    };
  }
};

// An open channel turned private: its non-members lose it and are told; its
// members keep it (they get its new 39000, and no kind 5); a session whose
// token never reached the channel is told nothing.
TEST_F(ChannelGoneTest, TurnedPrivateReachesItsFormerReadersOnly) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string lobby = create(a, "open");
  const std::string other = create(a, "open");
  add(a, lobby, b);
  for (Peer* p : {&a, &b, &c}) subscribe(*p, "list", list_filter());
  subscribe(c, "kind5", R"({"kinds":[5]})");
  subscribe(c, "wildcard", R"({"since":)" + std::to_string(unix_now()) + "}");
  ASSERT_TRUE(c->publish(make_event(c.key, 9021, "", {{"h", other}})).accepted);  // a token names channels one is in
  auto elsewhere = token_session(relay(), c, other);
  ASSERT_TRUE(elsewhere);
  ASSERT_TRUE(elsewhere->req("list", list_filter()).eose);

  ASSERT_TRUE(edit_meta(a, lobby, {{"visibility", "private"}}).accepted);
  EXPECT_TRUE(c->wait_for(gone(lobby))) << "a non-member of a channel turned private was not told it is gone";
  EXPECT_TRUE(c->wait_for(gone(lobby, "kind5"))) << "a global subscription naming kind 5 did not get it";
  for (Peer* member : {&a, &b}) {
    EXPECT_TRUE((*member)->wait_for([&](const RelayMessage& m) {
      return m.type == "EVENT" && m.event.kind == 39000 && has_tag(m.event, {"d", lobby}) &&
             has_tag(m.event, {"private"});
    })) << "a member did not get the channel's new state";
    EXPECT_FALSE((*member)->wait_for(any_gone(lobby), kQuietMs)) << "a member was told the channel is gone";
  }
  EXPECT_FALSE(elsewhere->wait_for(any_gone(lobby), kQuietMs)) << "a token that never reached the channel was told";
  EXPECT_FALSE(c->wait_for([&](const RelayMessage& m) { return m.id == "wildcard" && m.event.kind == 5; }, 0))
      << "a wildcard subscription got it";

  // Turned open and private again: the same non-member is told again.
  ASSERT_TRUE(edit_meta(a, lobby, {{"visibility", "open"}}).accepted);
  ASSERT_TRUE(edit_meta(a, lobby, {{"visibility", "private"}}).accepted);
  EXPECT_TRUE(c->wait_for(gone(lobby)));
}

// A deleted channel is gone for everyone who could read it: every relay user
// for an open one, its members for a private one. A private channel's
// deletion never reaches a non-member: not live, not in history, not counted.
TEST_F(ChannelGoneTest, DeletedReachesItsFormerReadersOnly) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string open = create(a, "open");
  const std::string priv = create(a, "private");
  add(a, priv, b);
  for (Peer* p : {&a, &b, &c}) subscribe(*p, "list", list_filter());

  ASSERT_TRUE(a->publish(make_event(a.key, 9008, "", {{"h", priv}})).accepted);
  EXPECT_TRUE(b->wait_for(gone(priv))) << "a member of a deleted private channel was not told";
  EXPECT_TRUE(a->wait_for(gone(priv)));
  EXPECT_FALSE(c->wait_for(any_gone(priv), kQuietMs)) << "a private channel's deletion reached a non-member";

  ASSERT_TRUE(a->publish(make_event(a.key, 9008, "", {{"h", open}})).accepted);
  for (Peer* p : {&a, &b, &c}) {
    EXPECT_TRUE((*p)->wait_for(gone(open))) << "a reader of a deleted open channel was not told";
  }

  // Never stored: history and COUNT have nothing to show, to anyone.
  const std::string by_address = R"({"kinds":[5],"#k":["39000"],"authors":[")" + relay_pubkey() + R"("]})";
  for (Peer* p : {&a, &b, &c}) {
    for (const Event& e : read(*p, "history", by_address)) {
      EXPECT_TRUE(e.raw.find(priv) == std::string::npos && e.raw.find(open) == std::string::npos) << e.raw;
    }
  }
  auto counted = c->count("n", R"({"kinds":[5],"#a":["39000:)" + relay_pubkey() + ":" + priv + R"("]})");
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->count, 0) << counted->raw;
}

// A removal tells whom it leaves without the channel: removed from a private
// channel, one is told; removed from an open one, one still reads it, and
// nothing is gone; a non-member of the private channel hears nothing of it.
TEST_F(ChannelGoneTest, RemovalTellsOnlyWhomItLeavesWithoutTheChannel) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string lobby = create(a, "open");
  const std::string priv = create(a, "private");
  add(a, lobby, b);
  add(a, priv, b);
  subscribe(b, "list", list_filter());
  subscribe(c, "list", list_filter());
  ASSERT_TRUE(remove(a, lobby, b.hex).accepted);
  ASSERT_TRUE(remove(a, priv, b.hex).accepted);
  EXPECT_TRUE(b->wait_for(gone(priv))) << "one removed from a private channel was not told";
  EXPECT_FALSE(b->wait_for(any_gone(lobby), kQuietMs)) << "one removed from an open channel was told it is gone";
  EXPECT_FALSE(c->wait_for(any_gone(priv), 0)) << "a non-member heard of a private channel";
}

}  // namespace
}  // namespace buzz::test
