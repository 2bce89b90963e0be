// End-to-end tests of what is posted in channels: edits and moderation
// deletes, reactions, threads and forum votes, DMs, gift wraps, typing and presence.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "tests/e2e/channel_fixture.h"
#include "tests/e2e/nostr_client.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;
using engine::Tag;

// A boolean field of a JSON object text.
std::optional<bool> json_bool(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  bool v = false;
  if (parser.parse(json)[key].get_bool().get(v)) return std::nullopt;
  return v;
}

// --- 40003 edit, 9005 delete ---------------------------------------------------

TEST_F(ChannelTest, OnlyTheAuthorEdits) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "private");
  const std::string other = create(a, "private");
  add(a, ch, b);
  Event m = post(a, ch);
  expect_refused(b->publish(make_event(b.key, 40003, "changed", {{"h", ch}, {"e", m.id_hex()}})), "invalid: must be event author to edit");
  OkReply outsider = c->publish(make_event(c.key, 40003, "changed", {{"h", ch}, {"e", m.id_hex()}}));
  EXPECT_EQ(outsider.reason, kNotMember);
  OkReply wrong_channel = a->publish(make_event(a.key, 40003, "moved", {{"h", other}, {"e", m.id_hex()}}));
  EXPECT_EQ(wrong_channel.reason, "invalid: target event belongs to a different channel");
  OkReply missing = a->publish(make_event(a.key, 40003, "?", {{"h", ch}, {"e", std::string(64, 'a')}}));
  EXPECT_EQ(missing.reason, "invalid: edit target event not found");
  Event edit = make_event(a.key, 40003, "fixed typo", {{"h", ch}, {"e", m.id_hex()}});
  OkReply ok = a->publish(edit);
  EXPECT_TRUE(ok.accepted) << ok.reason;
  std::vector<Event> got = read(b, "edits", h_filter(ch, "40003"));
  EXPECT_EQ(ids_of(got), std::vector<std::string>{edit.id_hex()});
  EXPECT_TRUE(read(c, "spy", R"({"kinds":[40003],"#e":[")" + m.id_hex() + R"("]})").empty());
}

TEST_F(ChannelTest, ModerationDeleteNeedsAuthorOrAdmin) {
  Peer a = user(), b = user(), d = user(), e = user();
  ASSERT_TRUE(a.c && b.c && d.c && e.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  add(a, ch, d);
  add(a, ch, e, "admin");
  Event by_b = post(b, ch);
  Event by_d = post(d, ch);
  expect_refused(b->publish(make_event(b.key, 9005, "", {{"h", ch}, {"e", by_d.id_hex()}})), "invalid: must be event author or channel owner/admin");

  subscribe(d, "live", h_filter(ch, "9005,40099"));
  Event mod = make_event(e.key, 9005, "", {{"h", ch}, {"e", by_d.id_hex()}});
  OkReply ok = e->publish(mod);
  ASSERT_TRUE(ok.accepted) << ok.reason;
  EXPECT_TRUE(receives(d, "live", mod.id_hex()));
  std::vector<Event> got = read(d, "after", h_filter(ch, "9,40099"));
  EXPECT_FALSE(contains_id(got, by_d.id_hex())) << "the deleted message is still returned";
  EXPECT_TRUE(contains_id(got, by_b.id_hex()));
  std::vector<Event> deleted = system_messages(got, "message_deleted");
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(json_str(deleted[0].content, "actor"), e.hex);
  EXPECT_EQ(json_str(deleted[0].content, "target_event_id"), by_d.id_hex());
  EXPECT_TRUE(read(d, "ids", ids_filter(by_d.id_hex())).empty());
  // The author may delete their own.
  OkReply own = b->publish(make_event(b.key, 9005, "", {{"h", ch}, {"e", by_b.id_hex()}}));
  EXPECT_TRUE(own.accepted) << own.reason;
  OkReply gone = a->publish(make_event(a.key, 9005, "", {{"h", ch}, {"e", by_b.id_hex()}}));
  EXPECT_EQ(gone.reason, "invalid: target event not found");
}

// --- kind 7 reactions ------------------------------------------------------------

TEST_F(ChannelTest, ReactionsInheritTheTargetsChannel) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  Event m = post(a, ch);
  // No h needed: the channel is the target's. To a non-member it is absent (docs/access.md).
  expect_refused(c->publish(make_event(c.key, 7, "+", {{"e", m.id_hex()}})), "invalid: reaction target event not found");
  // An h naming an open channel does not move it out of the private one.
  const std::string open = create(c, "open");
  OkReply sneaky = c->publish(make_event(c.key, 7, "+", {{"h", open}, {"e", m.id_hex()}}));
  EXPECT_EQ(sneaky.reason, "invalid: reaction target event not found");

  subscribe(a, "live", h_filter(ch, "7"));
  subscribe(c, "spy", R"({"kinds":[7],"#e":[")" + m.id_hex() + R"("]})");
  Event like = make_event(b.key, 7, "+", {{"e", m.id_hex()}, {"p", a.hex}});
  OkReply ok = b->publish(like);
  ASSERT_TRUE(ok.accepted) << ok.reason;
  EXPECT_TRUE(receives(a, "live", like.id_hex())) << "#h falls back to the stored channel";
  EXPECT_EQ(event_on(c, "spy"), "");

  Event repeat = make_event(b.key, 7, "+", {{"e", m.id_hex()}}, unix_now() - 1);
  OkReply dup = b->publish(repeat);
  ASSERT_TRUE(dup.received);
  EXPECT_FALSE(dup.accepted);
  EXPECT_EQ(dup.reason, "duplicate: reaction already exists");
  Event empty_is_plus = make_event(b.key, 7, "", {{"e", m.id_hex()}}, unix_now() - 2);
  EXPECT_EQ(b->publish(empty_is_plus).reason, "duplicate: reaction already exists");
  OkReply other = b->publish(make_event(b.key, 7, "🎉", {{"e", m.id_hex()}}));
  EXPECT_TRUE(other.accepted) << other.reason;
  OkReply unknown = b->publish(make_event(b.key, 7, "+", {{"e", std::string(64, 'b')}}));
  EXPECT_EQ(unknown.reason, "invalid: reaction target event not found");
  // After deleting the reaction (kind 5) it may be sent again.
  ASSERT_TRUE(b->publish(make_event(b.key, 5, "", {{"e", like.id_hex()}})).accepted);
  OkReply again = b->publish(make_event(b.key, 7, "+", {{"e", m.id_hex()}}, unix_now() - 3));
  EXPECT_TRUE(again.accepted) << again.reason;
  // A non-member cannot delete into the channel either.
  OkReply del = c->publish(make_event(c.key, 5, "", {{"e", m.id_hex()}}));
  EXPECT_FALSE(del.accepted);
}

// --- threads ---------------------------------------------------------------------

TEST_F(ChannelTest, ForumVotesTargetPostsAndANewerVoteReplacesTheOlder) {
  Peer a = user(), b = user();
  ASSERT_TRUE(a.c && b.c);
  const std::string ch = create(a, "open");
  Event forum_post = make_event(a.key, 45001, unique_text("post"), {{"h", ch}});
  ASSERT_TRUE(a->publish(forum_post).accepted);
  Event chat = post(a, ch);
  expect_refused(b->publish(make_event(b.key, 45002, "+", {{"h", ch}, {"e", chat.id_hex()}})), "invalid: vote target must be a forum post or comment");
  OkReply missing = b->publish(make_event(b.key, 45002, "+", {{"h", ch}}));
  EXPECT_EQ(missing.reason, "invalid: missing e tag for vote target");

  uint64_t now = unix_now();
  Event up = make_event(b.key, 45002, "+", {{"h", ch}, {"e", forum_post.id_hex()}}, now - 10);
  Event down = make_event(b.key, 45002, "-", {{"h", ch}, {"e", forum_post.id_hex()}}, now - 5);
  ASSERT_TRUE(b->publish(up).accepted);
  ASSERT_TRUE(b->publish(down).accepted);
  std::vector<Event> votes = read(b, "votes", R"({"kinds":[45002],"#e":[")" + forum_post.id_hex() + R"("]})");
  EXPECT_EQ(ids_of(votes), std::vector<std::string>{down.id_hex()});
  expect_refused(b->publish(make_event(b.key, 45002, "+", {{"h", ch}, {"e", forum_post.id_hex()}}, now - 20)), "duplicate: a newer vote from this author exists");
}

TEST_F(ChannelTest, ThreadRepliesFollowNip10Ancestry) {
  Peer a = user(), b = user();
  ASSERT_TRUE(a.c && b.c);
  const std::string ch = create(a, "open");
  const std::string other = create(a, "open");
  Event root = post(a, ch);
  Event lone = post(a, ch);
  Event reply = post(b, ch, {{"e", root.id_hex(), "", "reply"}});
  Event nested = post(a, ch, {{"e", root.id_hex(), "", "root"}, {"e", reply.id_hex(), "", "reply"}});

  expect_refused(b->publish(message(b, ch, {{"e", std::string(64, 'c'), "", "reply"}})), "invalid: reply parent not found");
  OkReply wrong_root =
      b->publish(message(b, ch, {{"e", lone.id_hex(), "", "root"}, {"e", reply.id_hex(), "", "reply"}}));
  EXPECT_FALSE(wrong_root.accepted);
  EXPECT_EQ(wrong_root.reason, "invalid: root tag does not match thread ancestry");
  OkReply elsewhere = b->publish(message(b, other, {{"e", root.id_hex(), "", "reply"}}));
  EXPECT_EQ(elsewhere.reason, "invalid: parent event belongs to a different channel");
  // Three-element e tags (quotes) are not thread markers.
  post(b, ch, {{"e", std::string(64, 'd'), ""}});

  std::vector<std::string> thread = ids_of(read(a, "thread", R"({"kinds":[9],"#h":[")" + ch + R"("],"#e":[")" +
                                                              root.id_hex() + R"("]})"));
  std::sort(thread.begin(), thread.end());
  std::vector<std::string> want = {reply.id_hex(), nested.id_hex()};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(thread, want);
}

// --- DMs -------------------------------------------------------------------------

// The JSON after "response:" in a command's OK reason ("" if absent).
std::string response_json(const OkReply& ok) {
  const std::string prefix = "response:";
  return ok.reason.starts_with(prefix) ? ok.reason.substr(prefix.size()) : "";
}

TEST_F(ChannelTest, DirectMessagesArePrivateToTheirParticipants) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  OkReply opened = a->publish(make_event(a.key, 41010, "", {{"p", b.hex}}));
  ASSERT_TRUE(opened.accepted) << opened.reason;
  EXPECT_TRUE(opened.reason.starts_with(R"(response:{"channel_id":")")) << opened.reason;
  const std::string dm = json_str(response_json(opened), "channel_id");
  ASSERT_EQ(dm.size(), 36u) << opened.reason;
  EXPECT_EQ(json_bool(response_json(opened), "created"), std::optional<bool>(true)) << opened.reason;

  // The same set from the other side: the same DM.
  OkReply reopened = b->publish(make_event(b.key, 41010, "", {{"p", a.hex}}));
  ASSERT_TRUE(reopened.accepted) << reopened.reason;
  EXPECT_EQ(json_str(response_json(reopened), "channel_id"), dm);
  EXPECT_EQ(json_bool(response_json(reopened), "created"), std::optional<bool>(false)) << reopened.reason;

  // Participants talk; a third party can neither read nor write.
  subscribe(b, "dm", h_filter(dm));
  Event hi = post(a, dm);
  EXPECT_TRUE(receives(b, "dm", hi.id_hex()));
  ReqResult spy = c->req("spy", h_filter(dm));
  ASSERT_TRUE(spy.closed) << why(spy);
  EXPECT_EQ(*spy.closed, kNotMember);
  EXPECT_TRUE(spy.events.empty());
  EXPECT_EQ(c->publish(message(c, dm)).reason, kNotMember);
  EXPECT_EQ(c->publish(make_event(c.key, 9021, "", {{"h", dm}})).reason, "restricted: channel is private");
  EXPECT_EQ(put_user(c, dm, c.hex).reason, kNotMember);
  // Nor can a participant change the set with NIP-29 kinds: that would be another DM.
  const std::string fixed = "invalid: DM participants are fixed; use kind 41011 to add members or 41012 to hide it";
  EXPECT_EQ(put_user(a, dm, c.hex).reason, fixed);
  EXPECT_EQ(a->publish(make_event(a.key, 9001, "", {{"h", dm}, {"p", b.hex}})).reason, fixed);
  EXPECT_EQ(a->publish(make_event(a.key, 9022, "", {{"h", dm}})).reason, fixed);
  EXPECT_TRUE(read(c, "ids", ids_filter(hi.id_hex())).empty());
  EXPECT_FALSE(contains_id(read(c, "glob", R"({"kinds":[9],"authors":[")" + a.hex + R"("]})"), hi.id_hex()));
  // Nobody owns a DM: no renaming or deleting it.
  EXPECT_EQ(edit_meta(a, dm, {{"name", "mine"}}).reason, kNotAuthorizedMeta);
  EXPECT_EQ(a->publish(make_event(a.key, 9008, "", {{"h", dm}})).reason, "invalid: only owner can delete group");

  // 41001 (relay-signed, p-gated) for both participants, not for c.
  for (Peer* who : {&a, &b}) {
    std::vector<Event> created = read(*who, "dms", p_filter(who->hex, "41001"));
    ASSERT_EQ(created.size(), 1u);
    EXPECT_TRUE(has_tag(created[0], {"h", dm}));
    EXPECT_TRUE(has_tag(created[0], {"p", a.hex}) && has_tag(created[0], {"p", b.hex}));
    EXPECT_EQ(json_str(created[0].content, "channel_id"), dm);
    EXPECT_EQ(json_str(created[0].content, "created_by"), a.hex);
    std::vector<Event> notes = read(*who, "notes", p_filter(who->hex, "44100"));
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(json_str(notes[0].content, "channel_id"), dm);
  }
  EXPECT_TRUE(read(c, "dms", p_filter(c.hex, "41001")).empty());
  ReqResult gated = c->req("gated", p_filter(a.hex, "41001"));  // a's: narrowed away for c
  ASSERT_TRUE(gated.eose) << why(gated);
  EXPECT_TRUE(gated.events.empty());
  // The DM's 39000 carries hidden + the participants.
  auto meta = first_of_kind(read(b, "meta", h_filter(dm, "39000")), 39000);
  ASSERT_TRUE(meta);
  EXPECT_TRUE(has_tag(*meta, {"private"}) && has_tag(*meta, {"hidden"}) && has_tag(*meta, {"t", "dm"}));
  EXPECT_TRUE(has_tag(*meta, {"p", a.hex}) && has_tag(*meta, {"p", b.hex}));
  EXPECT_EQ(meta->first_tag_value("name"), "DM");

  // Hide: the OK is {} (docs/reference/kinds.md §2.5, docs/reference/protocol.md §4) and a 30622 for the viewer names the DM.
  OkReply hide = a->publish(make_event(a.key, 41012, "", {{"h", dm}}));
  EXPECT_TRUE(hide.accepted);
  EXPECT_EQ(hide.reason, "{}");
  std::vector<Event> hidden = read(a, "hidden", p_filter(a.hex, "30622"));
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_TRUE(has_tag(hidden[0], {"h", dm}));
  EXPECT_TRUE(has_tag(hidden[0], {"d", a.hex}));
  for (const Event& e : read(b, "hidden", p_filter(b.hex, "30622"))) EXPECT_FALSE(has_tag(e, {"h", dm})) << e.raw;
  ReqResult other_view = c->req("hidden", p_filter(a.hex, "30622"));  // a's: narrowed away for c
  EXPECT_TRUE(other_view.eose) << why(other_view);
  EXPECT_TRUE(other_view.events.empty());
  EXPECT_TRUE(read(c, "hid", ids_filter(hidden[0].id_hex())).empty()) << "30622 is for its viewer only";
  EXPECT_EQ(c->publish(make_event(c.key, 41012, "", {{"h", dm}})).reason, "forbidden: not a member of this DM");
  EXPECT_EQ(c->publish(make_event(c.key, 41011, "", {{"h", dm}, {"p", c.hex}})).reason,
            "forbidden: not a member of this DM");

  // Add a member: a different DM; the old one stays closed to c.
  OkReply added = a->publish(make_event(a.key, 41011, "", {{"h", dm}, {"p", c.hex}}));
  ASSERT_TRUE(added.accepted) << added.reason;
  const std::string group = json_str(response_json(added), "channel_id");
  ASSERT_EQ(group.size(), 36u) << added.reason;
  EXPECT_NE(group, dm);
  EXPECT_FALSE(c->req("group", h_filter(group)).closed);
  EXPECT_TRUE(c->req("old", h_filter(dm)).closed);
  auto group_meta = first_of_kind(read(c, "gmeta", h_filter(group, "39000")), 39000);
  ASSERT_TRUE(group_meta);
  EXPECT_EQ(group_meta->first_tag_value("name"), "Group DM (3)");

  OkReply lonely = a->publish(make_event(a.key, 41010, "", {}));
  EXPECT_EQ(lonely.reason, "invalid: pubkeys must contain at least 1 other participant");
  Event repeat = make_event(b.key, 41010, "", {{"p", a.hex}}, unix_now() - 1);
  ASSERT_TRUE(b->publish(repeat).accepted);
  OkReply dup = b->publish(repeat);
  EXPECT_TRUE(dup.accepted);
  EXPECT_EQ(dup.reason, "duplicate: already processed");
}

// --- gift wraps ----------------------------------------------------------------------

TEST_F(ChannelTest, GiftWrapsAreReadableOnlyByTheirRecipient) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  subscribe(b, "inbox", p_filter(b.hex, "1059"));
  subscribe(c, "inbox", p_filter(c.hex, "1059"));
  Event wrap = make_event(engine::generate_keypair(), 1059, "ciphertext", {{"p", b.hex}});
  OkReply ok = a->publish(wrap);  // signed by a throw-away key
  ASSERT_TRUE(ok.accepted) << ok.reason;
  EXPECT_TRUE(receives(b, "inbox", wrap.id_hex()));
  EXPECT_EQ(event_on(c, "inbox"), "");

  EXPECT_EQ(ids_of(read(b, "read", p_filter(b.hex, "1059"))), std::vector<std::string>{wrap.id_hex()});
  for (const std::string& f : {p_filter(b.hex, "1059"), std::string(R"({"kinds":[1059]})"),
                               R"({"kinds":[1059],"#p":[")" + b.hex + R"(",")" + c.hex + R"("]})"}) {
    SCOPED_TRACE(f);
    ReqResult r = c->req("steal", f);
    EXPECT_TRUE(r.events.empty());
    EXPECT_TRUE(r.eose) << why(r);
  }
  EXPECT_TRUE(read(c, "own", p_filter(c.hex, "1059")).empty());
  auto n = c->count("n", p_filter(b.hex, "1059"));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->type, "COUNT");
  EXPECT_EQ(n->count, 0);
}

// --- typing and presence ---------------------------------------------------------------

TEST_F(ChannelTest, TypingStaysInsideThePrivateChannel) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  expect_refused(c->publish(make_event(c.key, 20002, "", {{"h", ch}})), kNotMember);
  EXPECT_EQ(c->publish(make_event(c.key, 20002, "", {{"h", to_upper(ch)}})).reason,
            "invalid: h tag must be a canonical lowercase UUID");

  subscribe(b, "typing", h_filter(ch, "20002"));
  subscribe(c, "typing", R"({"kinds":[20002]})");
  subscribe(c, "typing2", R"({"kinds":[20002],"authors":[")" + a.hex + R"("]})");
  Event typing = make_event(a.key, 20002, "", {{"h", ch}});
  OkReply ok = a->publish(typing);
  ASSERT_TRUE(ok.accepted) << ok.reason;
  EXPECT_EQ(ok.reason, "");
  EXPECT_TRUE(receives(b, "typing", typing.id_hex()));
  EXPECT_EQ(event_on(c, "typing"), "");
  EXPECT_EQ(event_on(c, "typing2"), "");
  // Not stored: no replay.
  EXPECT_TRUE(read(b, "replay", h_filter(ch, "20002")).empty());
  // On an open channel anyone may type.
  const std::string open = create(a, "open");
  OkReply open_ok = c->publish(make_event(c.key, 20002, "", {{"h", open}}));
  EXPECT_TRUE(open_ok.accepted) << open_ok.reason;
}

// GET /api/channels/{id}/typing: who typed within the last 5 s, to those who
// may read the channel; a non-member of a private channel is answered as for
// a channel that does not exist.
TEST_F(ChannelTest, TypingOverRestListsTheWindowsTypersToMembersOnly) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  const std::string path = "/api/channels/" + ch + "/typing";
  HttpReply none = rest_get(b.key, path);
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.body, R"({"channel_id":")" + ch + R"(","typing":[],"window_seconds":5})");

  ASSERT_TRUE(a->publish(make_event(a.key, 20002, "", {{"h", ch}})).accepted);
  HttpReply typing = rest_get(b.key, path);
  ASSERT_EQ(typing.status, 200) << typing.body;
  EXPECT_EQ(typing.body, R"({"channel_id":")" + ch + R"(","typing":[")" + a.hex + R"("],"window_seconds":5})");

  HttpReply outsider = rest_get(c.key, path);
  HttpReply missing = rest_get(c.key, "/api/channels/" + new_uuid() + "/typing");
  EXPECT_EQ(outsider.status, 403);
  EXPECT_EQ(outsider.status, missing.status);
  EXPECT_EQ(outsider.body, missing.body);
  EXPECT_EQ(outsider.body.find(a.hex), std::string::npos);

  // The window closes five seconds after the last 20002.
  std::string after = typing.body;
  for (int i = 0; i < 80 && after.find(a.hex) != std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after = rest_get(b.key, path).body;
  }
  EXPECT_EQ(after, none.body);
}

TEST_F(ChannelTest, PresenceReachesOnlyPubkeysSharingAChannel) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  subscribe(b, "presence", R"({"kinds":[20001]})");
  subscribe(c, "presence", R"({"kinds":[20001]})");
  Event online = make_event(a.key, 20001, "online");
  OkReply ok = a->publish(online);
  ASSERT_TRUE(ok.accepted) << ok.reason;
  EXPECT_EQ(ok.reason, "");
  EXPECT_TRUE(receives(b, "presence", online.id_hex()));
  EXPECT_EQ(event_on(c, "presence"), "");
}

}  // namespace
}  // namespace buzz::test
