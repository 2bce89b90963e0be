// End-to-end tests of channels over time, each on a relay of its own: channels
// and memberships survive a restart, and the reaper archives expired TTL channels.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "tests/e2e/channel_fixture.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;
using engine::Tag;

// ---------------------------------------------------------------------------
// Restart: channels and memberships live in the data directory.

TEST(ChannelRestartTest, ChannelsAndMembershipsSurviveRestart) {
  const ScratchDir scratch("channel-restart");
  const std::string& dir = scratch.path();
  RelayOptions opts{{"--open"}, {}, dir};

  Keypair ka = engine::generate_keypair(), kb = engine::generate_keypair(), kc = engine::generate_keypair(),
          kd = engine::generate_keypair();
  const std::string ch = new_uuid();
  Event m;
  {
    auto relay = start_relay(opts);
    ASSERT_TRUE(relay);
    std::string error;
    auto a = NostrClient::connect_authed(*relay, ka, &error);
    ASSERT_TRUE(a) << error;
    Event create = make_event(ka, 9007, "", {{"h", ch}, {"name", "durable"}, {"visibility", "private"}});
    ASSERT_TRUE(a->publish(create).accepted);
    ASSERT_TRUE(a->publish(make_event(ka, 9000, "", {{"h", ch}, {"p", hex(kb)}})).accepted);
    ASSERT_TRUE(a->publish(make_event(ka, 9000, "", {{"h", ch}, {"p", hex(kd)}, {"role", "admin"}})).accepted);
    ASSERT_TRUE(a->publish(make_event(ka, 9001, "", {{"h", ch}, {"p", hex(kd)}})).accepted);
    m = make_event(ka, 9, "kept", {{"h", ch}});
    ASSERT_TRUE(a->publish(m).accepted);
  }  // SIGTERM; the data dir is ours and stays

  auto relay = start_relay(opts);
  ASSERT_TRUE(relay);
  std::string error;
  auto b = NostrClient::connect_authed(*relay, kb, &error);
  auto c = NostrClient::connect_authed(*relay, kc, &error);
  auto d = NostrClient::connect_authed(*relay, kd, &error);
  auto a = NostrClient::connect_authed(*relay, ka, &error);
  ASSERT_TRUE(a && b && c && d) << error;
  ReqResult member = b->req("h", h_filter(ch));
  ASSERT_TRUE(member.eose) << why(member);
  EXPECT_EQ(ids_of(member.events), std::vector<std::string>{m.id_hex()});
  for (NostrClient* outsider : {c.get(), d.get()}) {
    ReqResult r = outsider->req("h", h_filter(ch));
    ASSERT_TRUE(r.closed) << why(r);
    EXPECT_EQ(*r.closed, kNotMember);
    EXPECT_EQ(outsider->publish(make_event(outsider == c.get() ? kc : kd, 9, "x", {{"h", ch}})).reason, kNotMember);
  }
  EXPECT_TRUE(a->publish(make_event(ka, 9, "after restart", {{"h", ch}})).accepted);
  EXPECT_EQ(a->publish(make_event(ka, 9007, "", {{"h", ch}, {"name", "again"}})).reason,
            "duplicate: channel already exists");
  // Roles survived: b is still a plain member, a the last owner.
  EXPECT_EQ(b->publish(make_event(kb, 9002, "", {{"h", ch}, {"name", "x"}})).reason, kNotAuthorizedMeta);
  EXPECT_EQ(a->publish(make_event(ka, 9022, "", {{"h", ch}})).reason, "invalid: cannot remove the last owner");
  ReqResult state = a->req("state", h_filter(ch, "39002"));
  ASSERT_TRUE(state.eose) << why(state);
  ASSERT_FALSE(state.events.empty());
  EXPECT_EQ(state.events[0].tags,
            (std::vector<Tag>{{"d", ch}, {"p", hex(ka), "", "owner"}, {"p", hex(kb), "", "member"}}));
}

// docs/reference/channels.md §5: a TTL channel past its deadline is archived by the reaper,
// which tells the channel (40099 channel_auto_archived, fresh 39000 with
// ["archived","true"]); posting is then refused.
TEST(ChannelReaperTest, ExpiredTtlChannelIsArchivedAndAnnounced) {
  auto relay = start_relay(RelayOptions{{"--open", "--reaper-interval", "1"}, {}, ""});
  ASSERT_TRUE(relay);
  Keypair owner = engine::generate_keypair();
  std::string error;
  auto c = NostrClient::connect_authed(*relay, owner, &error);
  ASSERT_TRUE(c) << error;
  const std::string ch = new_uuid();
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "brief"}, {"ttl", "1"}})).accepted);
  ReqResult sub = c->req("live", R"({"kinds":[40099,39000],"#h":[")" + ch + R"("],"limit":0})");
  ASSERT_TRUE(sub.eose);
  auto archived = c->wait_for([](const RelayMessage& m) {
    return m.type == "EVENT" && m.event.kind == 40099 && m.event.content == R"({"type":"channel_auto_archived"})";
  }, 5000);
  EXPECT_TRUE(archived) << "no channel_auto_archived within 5 s";
  auto meta = c->wait_for([](const RelayMessage& m) {
    return m.type == "EVENT" && m.event.kind == 39000 &&
           std::any_of(m.event.tags.begin(), m.event.tags.end(),
                       [](const engine::Tag& t) { return t == engine::Tag{"archived", "true"}; });
  }, 2000);
  EXPECT_TRUE(meta) << "no 39000 with [\"archived\",\"true\"]";
  expect_refused(c->publish(make_event(owner, 9, "too late", {{"h", ch}})), "invalid: channel is archived");
}

// BUZZ_EPHEMERAL_TTL_OVERRIDE replaces the ttl a 9007 carries (docs/reference/channels.md
// §4.5), so an hour-long channel expires in a second; one without a ttl is
// left alone. The test moves the relay's clock past the second.
TEST(ChannelReaperTest, TtlOverrideReplacesTheTtlOfEveryChannelThatHasOne) {
  RelayOptions o{{"--open", "--reaper-interval", "1"}, {{"BUZZ_EPHEMERAL_TTL_OVERRIDE", "1"}, {"BUZZ_TEST_CLOCK", "1"}}, ""};
  auto relay = start_relay(o);
  ASSERT_TRUE(relay);
  Keypair owner = engine::generate_keypair();
  std::string error;
  auto c = NostrClient::connect_authed(*relay, owner, &error);
  ASSERT_TRUE(c) << error;
  const std::string hour = new_uuid(), lasting = new_uuid();
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", hour}, {"name", "hour"}, {"ttl", "3600"}})).accepted);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", lasting}, {"name", "lasting"}})).accepted);
  ReqResult meta = c->req("meta", R"({"kinds":[39000],"#d":[")" + hour + R"("]})");
  ASSERT_EQ(meta.events.size(), 1u);
  const auto& tags = meta.events[0].tags;
  EXPECT_NE(std::find(tags.begin(), tags.end(), engine::Tag{"ttl", "1"}), tags.end());
  ASSERT_TRUE(c->req("live", R"({"kinds":[40099],"#h":[")" + hour + R"("],"limit":0})").eose);
  ASSERT_TRUE(relay->advance_clock(2, &error)) << error;
  EXPECT_TRUE(c->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.event.kind == 40099; }, 5000))
      << "not archived by the next reaper pass";
  expect_refused(c->publish(make_event(owner, 9, "an hour, overridden", {{"h", hour}})), "invalid: channel is archived");
  EXPECT_TRUE(c->publish(make_event(owner, 9, "still open", {{"h", lasting}})).accepted);
}

}  // namespace
}  // namespace buzz::test
