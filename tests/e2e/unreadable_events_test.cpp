// End-to-end tests of "Unreadable events look absent" (docs/access.md): an
// event the caller may not read — a private channel's message, a gift wrap
// addressed to another — answers every path exactly as an id nothing has:
// reactions, deletions, replies, edits, votes and moderation over WebSocket,
// and the event, thread and reaction endpoints over REST. Each probe is sent
// twice, at the unreadable event and at a missing id, and the answers compared.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/e2e/channel_fixture.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Tag;

// An id no event has.
std::string missing_id() {
  uint8_t b[32];
  engine::random_bytes(b, sizeof b);
  return engine::to_hex(b, sizeof b);
}

// The OK reason for one probe event aimed at `target`; each call signs a new event.
using Probe = std::function<Event(const std::string& target)>;

void expect_alike(Peer& prober, const std::string& what, const Probe& probe, const std::string& hidden) {
  SCOPED_TRACE(what);
  OkReply at_hidden = prober->publish(probe(hidden));
  OkReply at_missing = prober->publish(probe(missing_id()));
  ASSERT_TRUE(at_hidden.received && at_missing.received);
  EXPECT_FALSE(at_hidden.accepted) << "accepted against an event the prober may not read";
  EXPECT_EQ(at_hidden.reason, at_missing.reason);
}

void expect_alike(const HttpReply& hidden, const HttpReply& missing, const std::string& what) {
  EXPECT_EQ(hidden.status, missing.status) << what << ": " << hidden.body;
  EXPECT_EQ(hidden.body, missing.body) << what;
}

TEST_F(ChannelTest, AnEventTheCallerMayNotReadAnswersAsAMissingOneOnEveryPath) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string secret = create(a, "private");
  const std::string mine = create(c, "open");
  Event forum = make_event(a.key, 45001, unique_text("post"), {{"h", secret}});
  ASSERT_TRUE(a->publish(forum).accepted);
  Event m = post(a, secret);
  const std::string hidden = m.id_hex();

  auto signed_by = [&](uint16_t kind, std::vector<Tag> tags) { return make_event(c.key, kind, unique_text("probe"), std::move(tags)); };
  expect_alike(c, "reaction", [&](const std::string& id) { return signed_by(7, {{"e", id}}); }, hidden);
  expect_alike(c, "deletion", [&](const std::string& id) { return signed_by(5, {{"e", id}}); }, hidden);
  expect_alike(c, "reply from another channel",
               [&](const std::string& id) { return signed_by(9, {{"h", mine}, {"e", id, "", "reply"}}); }, hidden);
  expect_alike(c, "edit from another channel",
               [&](const std::string& id) { return signed_by(40003, {{"h", mine}, {"e", id}}); }, hidden);
  expect_alike(c, "vote from another channel",
               [&](const std::string& id) { return signed_by(45002, {{"h", mine}, {"e", id}}); }, forum.id_hex());
  expect_alike(c, "moderation from another channel",
               [&](const std::string& id) { return signed_by(9005, {{"h", mine}, {"e", id}}); }, hidden);

  const std::string other = missing_id();
  expect_alike(rest_get(c.key, "/api/events/" + hidden), rest_get(c.key, "/api/events/" + other), "GET event");
  expect_alike(rest_get(c.key, "/api/channels/" + mine + "/threads/" + hidden),
               rest_get(c.key, "/api/channels/" + mine + "/threads/" + other), "GET thread");
  expect_alike(rest_get(c.key, "/api/messages/" + hidden + "/reactions"),
               rest_get(c.key, "/api/messages/" + other + "/reactions"), "GET reactions");
  EXPECT_EQ(rest_get(c.key, "/api/messages/" + other + "/reactions").status, 404);

  // A member still reads them, and is told when a readable event sits in another channel.
  EXPECT_EQ(rest_get(a.key, "/api/messages/" + hidden + "/reactions").status, 200);
  const std::string a_open = create(a, "open");
  HttpReply elsewhere = rest_get(a.key, "/api/channels/" + a_open + "/threads/" + hidden);
  EXPECT_EQ(elsewhere.status, 400) << elsewhere.body;
  EXPECT_EQ(a->publish(make_event(a.key, 9, unique_text("x"), {{"h", a_open}, {"e", hidden, "", "reply"}})).reason,
            "invalid: parent event belongs to a different channel");
}

TEST_F(ChannelTest, AGiftWrapForAnotherAnswersAsAMissingEvent) {
  Peer wrapper = user(), recipient = user(), c = user();
  ASSERT_TRUE(wrapper.c && recipient.c && c.c);
  Event wrap = make_event(wrapper.key, 1059, "ciphertext", {{"p", recipient.hex}});
  ASSERT_TRUE(wrapper->publish(wrap).accepted);
  auto signed_by = [&](uint16_t kind, std::vector<Tag> tags) { return make_event(c.key, kind, unique_text("probe"), std::move(tags)); };
  expect_alike(c, "reaction", [&](const std::string& id) { return signed_by(7, {{"e", id}}); }, wrap.id_hex());
  expect_alike(c, "deletion", [&](const std::string& id) { return signed_by(5, {{"e", id}}); }, wrap.id_hex());
  expect_alike(rest_get(c.key, "/api/messages/" + wrap.id_hex() + "/reactions"),
               rest_get(c.key, "/api/messages/" + missing_id() + "/reactions"), "GET reactions");
}

}  // namespace
}  // namespace buzz::test
