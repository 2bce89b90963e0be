// End-to-end tests of channel membership and administration: put user (9000),
// remove and leave, join, roles, visibility and archive (9002), and deleting
// the channel (9008), with revocation taking effect at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
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

const char kRevoked[] = "restricted: channel access revoked";

// The CLOSED for this subscription, if one arrives in time.
std::optional<std::string> closed_reason(Peer& p, const std::string& sub, int timeout_ms = kReplyTimeoutMs) {
  auto m = p->wait_for([&](const RelayMessage& r) { return r.type == "CLOSED" && r.id == sub; }, timeout_ms);
  if (!m) return std::nullopt;
  return m->text;
}

// --- 9000 put user -----------------------------------------------------------

TEST_F(ChannelTest, MemberAddsUserToPrivateChannel) {
  Peer a = user(), b = user(), d = user();
  ASSERT_TRUE(a.c && b.c && d.c);
  const std::string ch = create(a, "private");
  Event before = post(a, ch);
  add(a, ch, b);
  EXPECT_TRUE(d->req("before", h_filter(ch)).closed) << "not a member yet";
  Peer c = user();
  ASSERT_TRUE(c.c);
  subscribe(d, "inbox", p_filter(d.hex, "44100"));
  subscribe(c, "inbox", p_filter(c.hex, "44100"));
  ReqResult peek = c->req("peek", p_filter(d.hex, "44100,44101"));  // d's notifications: narrowed away
  ASSERT_TRUE(peek.eose) << why(peek);
  EXPECT_TRUE(peek.events.empty());
  OkReply ok = put_user(b, ch, d.hex);  // a plain member may add on a private channel
  ASSERT_TRUE(ok.accepted) << ok.reason;
  EXPECT_EQ(ok.reason, "");
  EXPECT_EQ(ids_of(read(d, "after", h_filter(ch))), std::vector<std::string>{before.id_hex()});
  auto live_note = d->wait_for(
      [](const RelayMessage& m) { return m.type == "EVENT" && m.id == "inbox" && m.event.kind == 44100; });
  EXPECT_TRUE(live_note) << "no live 44100 for the added member";
  EXPECT_EQ(event_on(c, "inbox"), "");

  std::vector<Event> notes = read(d, "notes", p_filter(d.hex, "44100"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(json_str(notes[0].content, "actor"), b.hex);
  EXPECT_EQ(json_str(notes[0].content, "channel_id"), ch);
  EXPECT_EQ(json_str(notes[0].content, "type"), "member_added");

  std::vector<Event> got = read(d, "state", h_filter(ch, "40099,39002"));
  bool joined = false;
  for (const Event& e : system_messages(got, "member_joined")) {
    joined |= json_str(e.content, "actor") == b.hex && json_str(e.content, "target") == d.hex;
  }
  EXPECT_TRUE(joined);
  auto members = first_of_kind(got, 39002);
  ASSERT_TRUE(members);
  EXPECT_EQ(members->tags, (std::vector<Tag>{{"d", ch}, {"p", a.hex, "", "owner"}, {"p", b.hex, "", "member"},
                                             {"p", d.hex, "", "member"}}));
}

TEST_F(ChannelTest, PutUserValidation) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string priv = create(a, "private");
  expect_refused(put_user(a, priv, c.hex, "wizard"), "invalid: invalid role: wizard");
  expect_refused(a->publish(make_event(a.key, 9000, "", {{"h", priv}})), "invalid: missing p tag");
  // A non-member cannot add to a private channel, not even themselves.
  expect_refused(put_user(c, priv, c.hex), kNotMember);
  EXPECT_TRUE(c->req("r", h_filter(priv)).closed);
}

// A refused workflow command (docs/reference/workflows.md §14) is answered and never stored.
TEST_F(ChannelTest, RefusedWorkflowCommandsAreNeverStored) {
  Peer a = user();
  ASSERT_TRUE(a.c);
  const std::string ch = create(a, "open");
  Event create_command = make_event(a.key, 30620, "name: x", {{"h", ch}, {"d", "x"}});
  expect_refused(a->publish(create_command), "invalid: workflow YAML parse error: invalid YAML: missing field `trigger` at line 1 column 1");
  EXPECT_TRUE(read(a, "cmd", ids_filter(create_command.id_hex())).empty());
  for (uint16_t kind : {46020, 46030, 46031}) {
    SCOPED_TRACE(kind);
    Event command = make_event(a.key, kind, "", {{"d", std::string(64, 'a')}});
    expect_refused(a->publish(command), kind == 46020 ? "invalid: workflow not found" : "invalid: approval not found");
    EXPECT_TRUE(read(a, "cmd", ids_filter(command.id_hex())).empty());
  }
}

TEST_F(ChannelTest, AgentAddPolicyFromKind10100) {
  Peer owner = user(), nobody_agent = user(), owner_only_agent = user(), open_agent = user();
  ASSERT_TRUE(owner.c && nobody_agent.c && owner_only_agent.c && open_agent.c);
  const std::string ch = create(owner, "private");
  auto profile = [](Peer& agent, const std::string& policy) {
    OkReply ok = agent->publish(make_event(agent.key, 10100, R"({"channel_add_policy":")" + policy + R"("})"));
    EXPECT_TRUE(ok.accepted) << ok.reason;
  };
  profile(nobody_agent, "nobody");
  profile(owner_only_agent, "owner_only");
  profile(open_agent, "anyone");
  expect_refused(put_user(owner, ch, nobody_agent.hex),
                 "invalid: policy:nobody — this agent has disabled external channel additions");
  expect_refused(put_user(owner, ch, owner_only_agent.hex), "invalid: policy:owner_only — agent has no owner set");
  EXPECT_TRUE(put_user(owner, ch, open_agent.hex).accepted);
  // The policy guards additions by others, not an agent joining an open channel itself.
  const std::string open = create(owner, "open");
  EXPECT_TRUE(put_user(nobody_agent, open, nobody_agent.hex).accepted);
}

TEST_F(ChannelTest, OnlyOwnersAndAdminsGrantElevatedRoles) {
  Peer a = user(), b = user(), c = user(), d = user();
  ASSERT_TRUE(a.c && b.c && c.c && d.c);
  const std::string priv = create(a, "private");
  const std::string open = create(a, "open");
  add(a, priv, b);
  for (const std::string role : {"admin", "owner"}) {
    SCOPED_TRACE(role);
    OkReply member = put_user(b, priv, d.hex, role);
    EXPECT_FALSE(member.accepted);
    EXPECT_EQ(member.reason, "invalid: only owners/admins may grant elevated roles");
    // On an open channel too (a non-member, even for themselves).
    expect_refused(put_user(c, open, c.hex, role), "invalid: only owners/admins may grant elevated roles");
  }
  // d never became a member; c is no admin of the open channel.
  EXPECT_TRUE(d->req("r", h_filter(priv)).closed);
  std::vector<Event> admins = read(a, "adm", h_filter(open, "39001"));
  ASSERT_FALSE(admins.empty());
  EXPECT_EQ(admins[0].tags, (std::vector<Tag>{{"d", open}, {"p", a.hex, "owner"}}));
  // Plain roles are fine from a plain member / a non-member on an open channel.
  add(b, priv, d, "guest");
  add(c, open, c, "member");
}

TEST_F(ChannelTest, OnlyOwnersAndAdminsChangeRoles) {
  Peer a = user(), b = user(), c = user(), e = user();
  ASSERT_TRUE(a.c && b.c && c.c && e.c);
  const std::string priv = create(a, "private");
  const std::string open = create(a, "open");
  add(a, priv, b);
  add(a, priv, e, "admin");
  add(a, open, b);
  // A member demoting the owner (the upstream flaw): refused.
  OkReply demote = put_user(b, priv, a.hex, "member");
  EXPECT_FALSE(demote.accepted);
  EXPECT_EQ(demote.reason, "invalid: only owners/admins may change roles");
  // On an open channel a non-member may not demote the owner either.
  expect_refused(put_user(c, open, a.hex, "member"), "invalid: only owners/admins may change roles");
  // A member demoting an admin, or changing another member's role: refused.
  expect_refused(put_user(b, priv, e.hex, "guest"), "invalid: only owners/admins may change roles");
  // An admin may not touch the owner role; the last owner stays.
  expect_refused(put_user(e, priv, a.hex, "member"), "invalid: only owners may change owner role");
  expect_refused(put_user(a, priv, a.hex, "admin"), "invalid: cannot remove the last owner");
  // The same role again is an idempotent success.
  OkReply same = put_user(a, priv, b.hex, "member");
  EXPECT_TRUE(same.accepted) << same.reason;

  std::vector<Event> admins = read(a, "adm", h_filter(priv, "39001"));
  ASSERT_FALSE(admins.empty());
  EXPECT_EQ(admins[0].tags, (std::vector<Tag>{{"d", priv}, {"p", a.hex, "owner"}, {"p", e.hex, "admin"}}));
  // An admin may change a plain member's role; with two owners, one may be demoted.
  OkReply to_guest = put_user(e, priv, b.hex, "guest");
  EXPECT_TRUE(to_guest.accepted) << to_guest.reason;
  add(a, priv, e, "owner");
  OkReply demote_second = put_user(e, priv, a.hex, "member");
  EXPECT_TRUE(demote_second.accepted) << demote_second.reason;
  admins = read(a, "adm2", h_filter(priv, "39001"));
  ASSERT_FALSE(admins.empty());
  EXPECT_EQ(admins[0].tags, (std::vector<Tag>{{"d", priv}, {"p", e.hex, "owner"}}));
}

// --- 9001 remove / 9022 leave --------------------------------------------------

TEST_F(ChannelTest, RemovedMemberIsRevokedAtOnce) {
  Peer a = user(), b = user();
  ASSERT_TRUE(a.c && b.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  std::vector<Event> replayed = read(b, "live", h_filter(ch, "9,40099"));
  subscribe(b, "live2", h_filter(ch, "40003"));
  subscribe(b, "other", R"({"kinds":[1],"authors":[")" + a.hex + R"("]})");  // global: untouched
  Peer b2 = another_connection(b);
  ASSERT_TRUE(b2.c);
  subscribe(b2, "live", h_filter(ch));
  OkReply ok = remove(a, ch, b.hex);
  ASSERT_TRUE(ok.accepted) << ok.reason;
  auto closed = b->wait_for([](const RelayMessage& m) { return m.type == "CLOSED" && m.id == "live"; });
  ASSERT_TRUE(closed) << "no CLOSED for the removed member's subscription";
  EXPECT_EQ(closed->raw, R"(["CLOSED","live","restricted: channel access revoked"])");
  EXPECT_EQ(closed_reason(b, "live2"), std::optional<std::string>(kRevoked));
  EXPECT_EQ(closed_reason(b2, "live"), std::optional<std::string>(kRevoked)) << "every connection of the pubkey";

  Event after = post(a, ch);
  EXPECT_EQ(event_on(b, "live", replayed), "");
  EXPECT_EQ(event_on(b2, "live"), "");
  ReqResult again = b->req("again", h_filter(ch));
  ASSERT_TRUE(again.closed) << why(again);
  EXPECT_EQ(*again.closed, kNotMember);
  EXPECT_FALSE(contains_id(read(b, "glob", R"({"kinds":[9],"authors":[")" + a.hex + R"("]})"), after.id_hex()));
  OkReply posting = b->publish(message(b, ch));
  EXPECT_EQ(posting.reason, kNotMember);
  // The global subscription is still there.
  Event note = make_event(a.key, 1, unique_text("still"));
  ASSERT_TRUE(a->publish(note).accepted);
  EXPECT_TRUE(receives(b, "other", note.id_hex()));

  std::vector<Event> removed = read(b, "notes", p_filter(b.hex, "44101"));
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(json_str(removed[0].content, "type"), "member_removed");
  EXPECT_EQ(json_str(removed[0].content, "channel_id"), ch);
  EXPECT_EQ(json_str(removed[0].content, "actor"), a.hex);
  std::vector<Event> sys = system_messages(read(a, "sys", h_filter(ch, "40099")), "member_removed");
  ASSERT_EQ(sys.size(), 1u);
  EXPECT_EQ(json_str(sys[0].content, "actor"), a.hex);
  EXPECT_EQ(json_str(sys[0].content, "target"), b.hex);
}

TEST_F(ChannelTest, NonAdminCannotRemoveOthers) {
  Peer a = user(), b = user(), d = user(), c = user();
  ASSERT_TRUE(a.c && b.c && d.c && c.c);
  const std::string ch = create(a, "private");
  const std::string open = create(a, "open");
  add(a, ch, b);
  add(a, ch, d);
  add(a, open, d);
  expect_refused(remove(b, ch, d.hex), "invalid: actor not authorized");
  expect_refused(remove(b, ch, a.hex), "invalid: actor not authorized");
  expect_refused(remove(c, open, d.hex), "invalid: actor not authorized");
  OkReply private_outsider = remove(c, ch, d.hex);
  EXPECT_EQ(private_outsider.reason, kNotMember);
  EXPECT_FALSE(d->req("still", h_filter(ch)).closed) << "d is still a member";
}

TEST_F(ChannelTest, LeaveRules) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "private");
  const std::string open = create(a, "open");
  add(a, ch, b);
  // The last owner can neither leave nor remove themselves.
  OkReply leave = a->publish(make_event(a.key, 9022, "", {{"h", ch}}));
  EXPECT_FALSE(leave.accepted);
  EXPECT_EQ(leave.reason, "invalid: cannot remove the last owner");
  expect_refused(remove(a, ch, a.hex), "invalid: cannot remove the last owner");
  // A non-member cannot leave an open channel.
  expect_refused(c->publish(make_event(c.key, 9022, "", {{"h", open}})), "invalid: actor is not an active member");
  // A member leaves: their own live subscription ends.
  subscribe(b, "live", h_filter(ch));
  OkReply bye = b->publish(make_event(b.key, 9022, "", {{"h", ch}}));
  ASSERT_TRUE(bye.accepted) << bye.reason;
  auto reason = closed_reason(b, "live");
  ASSERT_TRUE(reason) << "no CLOSED after leaving";
  EXPECT_EQ(*reason, kRevoked);
  post(a, ch);
  EXPECT_EQ(event_on(b, "live"), "");
  std::vector<Event> left = system_messages(read(a, "sys", h_filter(ch, "40099")), "member_left");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(json_str(left[0].content, "actor"), b.hex);
  EXPECT_EQ(read(b, "notes", p_filter(b.hex, "44101")).size(), 1u);
}

// --- 9021 join ---------------------------------------------------------------

TEST_F(ChannelTest, JoinOpenChannelButNotPrivateOne) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string open = create(a, "open");
  const std::string priv = create(a, "private");
  OkReply join = c->publish(make_event(c.key, 9021, "", {{"h", open}}));
  ASSERT_TRUE(join.accepted) << join.reason;
  std::vector<Event> got = read(c, "state", h_filter(open, "40099,39002"));
  auto members = first_of_kind(got, 39002);
  ASSERT_TRUE(members);
  EXPECT_EQ(members->tags, (std::vector<Tag>{{"d", open}, {"p", a.hex, "", "owner"}, {"p", c.hex, "", "member"}}));
  std::vector<Event> joined = system_messages(got, "member_joined");
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(json_str(joined[0].content, "actor"), c.hex);
  EXPECT_EQ(json_str(joined[0].content, "target"), c.hex);
  EXPECT_EQ(read(c, "notes", p_filter(c.hex, "44100")).size(), 1u);
  // Joining again changes nothing.
  OkReply again = c->publish(make_event(c.key, 9021, "", {{"h", open}, {"client", "again"}}));
  EXPECT_TRUE(again.accepted) << again.reason;
  EXPECT_EQ(system_messages(read(c, "state2", h_filter(open, "40099")), "member_joined").size(), 1u);

  expect_refused(c->publish(make_event(c.key, 9021, "", {{"h", priv}})), "restricted: channel is private");
  EXPECT_TRUE(c->req("priv", h_filter(priv)).closed);
  expect_refused(c->publish(make_event(c.key, 9021, "", {{"h", new_uuid()}})), "invalid: channel not found");
}

// --- roles: guest, bot, member ------------------------------------------------

TEST_F(ChannelTest, GuestPostsButCannotEditSettingsAndMemberSetsTopic) {
  Peer a = user(), g = user(), bot = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && g.c && bot.c && b.c && c.c);
  const std::string ch = create(a, "private");
  add(a, ch, g, "guest");
  add(a, ch, bot, "bot");
  add(a, ch, b);
  post(g, ch);
  post(bot, ch);
  EXPECT_FALSE(g->req("read", h_filter(ch)).closed) << "a guest reads the channel";
  for (Peer* who : {&g, &bot, &b}) {
    for (const Tag& tag : std::vector<Tag>{{"name", "renamed"}, {"about", "x"}, {"visibility", "open"},
                                           {"archived", "true"}, {"ttl", "60"}}) {
      SCOPED_TRACE(tag[0]);
      expect_refused(edit_meta(*who, ch, {tag}), kNotAuthorizedMeta);
    }
    // name together with topic is still an admin change
    OkReply mixed = edit_meta(*who, ch, {{"topic", "t"}, {"name", "n"}});
    EXPECT_EQ(mixed.reason, kNotAuthorizedMeta);
  }
  subscribe(a, "live", h_filter(ch, "40099,39000"));
  OkReply topic = edit_meta(b, ch, {{"topic", "release week"}});
  ASSERT_TRUE(topic.accepted) << topic.reason;
  bool saw_message = false;
  while (!saw_message) {
    auto m = a->wait_for(
        [](const RelayMessage& r) { return r.type == "EVENT" && r.id == "live" && r.event.kind == 40099; });
    ASSERT_TRUE(m) << "no live topic_changed";
    if (json_str(m->event.content, "type") != "topic_changed") continue;
    saw_message = true;
    EXPECT_EQ(json_str(m->event.content, "actor"), b.hex);
    EXPECT_EQ(json_str(m->event.content, "topic"), "release week");
  }
  auto meta = first_of_kind(read(a, "meta", h_filter(ch, "39000")), 39000);
  ASSERT_TRUE(meta);
  EXPECT_TRUE(has_tag(*meta, {"topic", "release week"}));
  EXPECT_TRUE(has_tag(*meta, {"name", "chan " + ch.substr(0, 8)}));
  // A guest may set the purpose (any member).
  OkReply purpose = edit_meta(g, ch, {{"purpose", "ship it"}});
  EXPECT_TRUE(purpose.accepted) << purpose.reason;
  // A non-member of an open channel may not set the topic.
  const std::string open = create(a, "open");
  expect_refused(edit_meta(c, open, {{"topic", "spam"}}), "invalid: not a member");
  OkReply none = edit_meta(a, ch, {{"colour", "red"}});
  EXPECT_EQ(none.reason,
            "invalid: kind:9002 must include at least one metadata tag (name, about, archived, topic, purpose, "
            "visibility, ttl)");
}

// --- 9002 visibility / archive -------------------------------------------------

TEST_F(ChannelTest, TurningPrivateEvictsNonMembers) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "open");
  add(a, ch, b);
  subscribe(b, "live", h_filter(ch));
  subscribe(c, "live", h_filter(ch));
  subscribe(c, "typing", h_filter(ch, "20002"));
  OkReply ok = edit_meta(a, ch, {{"visibility", "private"}});
  ASSERT_TRUE(ok.accepted) << ok.reason;
  for (const char* sub : {"live", "typing"}) {
    auto reason = closed_reason(c, sub);
    ASSERT_TRUE(reason) << "no CLOSED for the non-member's " << sub;
    EXPECT_EQ(*reason, kRevoked);
  }
  Event m = post(a, ch);
  EXPECT_TRUE(receives(b, "live", m.id_hex()));
  EXPECT_FALSE(closed_reason(b, "live", kQuietMs)) << "the member's subscription must stay";
  EXPECT_EQ(event_on(c, "live"), "");
  EXPECT_EQ(c->publish(message(c, ch)).reason, kNotMember);
  EXPECT_TRUE(c->req("again", h_filter(ch)).closed);

  std::vector<Event> got = read(a, "state", h_filter(ch, "40099,39000"));
  auto meta = first_of_kind(got, 39000);
  ASSERT_TRUE(meta);
  EXPECT_TRUE(has_tag(*meta, {"private"}));
  EXPECT_FALSE(has_tag(*meta, {"public"}));
  std::vector<Event> changed = system_messages(got, "visibility_changed");
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(json_str(changed[0].content, "visibility"), "private");
  OkReply bad = edit_meta(a, ch, {{"visibility", "hidden"}});
  EXPECT_EQ(bad.reason, R"(invalid: invalid visibility value: hidden (must be "open" or "private"))");
}

TEST_F(ChannelTest, ArchivedChannelIsReadOnlyUntilUnarchived) {
  Peer a = user(), b = user();
  ASSERT_TRUE(a.c && b.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  Event old = post(b, ch);
  OkReply archive = edit_meta(a, ch, {{"archived", "true"}});
  ASSERT_TRUE(archive.accepted) << archive.reason;
  for (Peer* who : {&a, &b}) {
    expect_refused((*who)->publish(message(*who, ch)), "invalid: channel is archived");
  }
  EXPECT_EQ(edit_meta(b, ch, {{"topic", "x"}}).reason, "invalid: channel is archived");
  EXPECT_EQ(put_user(a, ch, engine::to_hex(engine::generate_keypair().pubkey)).reason, "invalid: channel is archived");
  EXPECT_EQ(edit_meta(a, ch, {{"archived", "true"}}).reason, "invalid: channel is archived");
  // History stays readable; 39000 says archived.
  std::vector<Event> got = read(b, "hist", h_filter(ch, "9,39000"));
  EXPECT_TRUE(contains_id(got, old.id_hex()));
  auto meta = first_of_kind(got, 39000);
  ASSERT_TRUE(meta);
  EXPECT_TRUE(has_tag(*meta, {"archived", "true"}));
  // A plain member cannot unarchive; an owner can.
  expect_refused(edit_meta(b, ch, {{"archived", "false"}}), kNotAuthorizedMeta);
  OkReply unarchive = edit_meta(a, ch, {{"archived", "false"}});
  ASSERT_TRUE(unarchive.accepted) << unarchive.reason;
  post(b, ch);
  OkReply again = edit_meta(a, ch, {{"archived", "false"}});
  EXPECT_EQ(again.reason, "invalid: channel is not archived");
  std::vector<Event> sys = read(a, "sys", h_filter(ch, "40099"));
  EXPECT_EQ(system_messages(sys, "channel_archived").size(), 1u);
  EXPECT_EQ(system_messages(sys, "channel_unarchived").size(), 1u);
}

TEST_F(ChannelTest, AdminCanUnarchive) {
  Peer a = user(), e = user();
  ASSERT_TRUE(a.c && e.c);
  const std::string ch = create(a, "open");
  add(a, ch, e, "admin");
  ASSERT_TRUE(edit_meta(e, ch, {{"archived", "true"}}).accepted);
  EXPECT_EQ(edit_meta(e, ch, {{"archived", "true"}}).reason, "invalid: channel is archived");
  OkReply ok = edit_meta(e, ch, {{"archived", "false"}});
  EXPECT_TRUE(ok.accepted) << ok.reason;
  post(e, ch);
}

// --- 9008 delete group -----------------------------------------------------------

TEST_F(ChannelTest, OnlyTheOwnerDeletesTheChannel) {
  Peer a = user(), e = user(), b = user();
  ASSERT_TRUE(a.c && e.c && b.c);
  const std::string ch = create(a, "private");
  add(a, ch, e, "admin");
  add(a, ch, b);
  Event m = post(b, ch);
  expect_refused(e->publish(make_event(e.key, 9008, "", {{"h", ch}})), "invalid: only owner can delete group");
  OkReply member = b->publish(make_event(b.key, 9008, "", {{"h", ch}}));
  EXPECT_EQ(member.reason, "invalid: only owner can delete group");

  subscribe(b, "live", h_filter(ch, "9,40099"));
  subscribe(a, "live", h_filter(ch));
  OkReply ok = a->publish(make_event(a.key, 9008, "", {{"h", ch}}));
  ASSERT_TRUE(ok.accepted) << ok.reason;
  // The last system message reaches current subscribers, then their subscriptions end.
  auto last = b->wait_for([](const RelayMessage& r) {
    return r.type == "EVENT" && r.id == "live" && json_str(r.event.content, "type") == "channel_deleted";
  });
  EXPECT_TRUE(last) << "no 40099 channel_deleted for a current subscriber";
  for (Peer* who : {&b, &a}) {
    auto reason = closed_reason(*who, "live");
    ASSERT_TRUE(reason) << "no CLOSED after 9008";
    EXPECT_EQ(*reason, "restricted: channel deleted");
  }
  for (Peer* who : {&a, &b}) {
    EXPECT_EQ((*who)->publish(message(*who, ch)).reason, kNotMember);
    ReqResult r = (*who)->req("after", h_filter(ch));
    ASSERT_TRUE(r.closed) << why(r);
    EXPECT_EQ(*r.closed, kNotMember);
  }
  EXPECT_TRUE(read(a, "state", R"({"kinds":[39000,39001,39002],"#d":[")" + ch + R"("]})").empty());
  EXPECT_TRUE(read(b, "ids", ids_filter(m.id_hex())).empty());
  EXPECT_EQ(b->publish(make_event(b.key, 9021, "", {{"h", ch}})).reason, "invalid: channel not found");
  // The deleted channel does not come back through a 9007 with its id.
  EXPECT_FALSE(a->publish(create_event(a, ch, "open")).accepted);
}

}  // namespace
}  // namespace buzz::test
