// End-to-end tests of a channel's life against the real `buzz` binary:
// creating it (9007), who may post to it, and every way of reading it that
// must not reach a non-member. The fixture is in channel_fixture.h.
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

// --- 9007 create group -------------------------------------------------------

TEST_F(ChannelTest, CreateWithHStoresInChannelAndEmitsFollowUps) {
  Peer a = user();
  ASSERT_TRUE(a.c);
  ASSERT_EQ(relay_pubkey().size(), 64u) << "NIP-11 self";
  // A global subscription never receives channel events: the 9007 with h lives in its channel.
  subscribe(a, "glob", R"({"kinds":[9007],"authors":[")" + a.hex + R"("]})");

  const std::string ch = new_uuid();
  Event create = create_event(a, ch, "private", {{"about", "the about text"}});
  OkReply ok = a->publish(create);
  ASSERT_TRUE(ok.received);
  EXPECT_TRUE(ok.accepted);
  EXPECT_EQ(ok.reason, "");
  EXPECT_EQ(event_on(a, "glob"), "") << "a 9007 with h is a channel event, not a global one";

  std::vector<Event> got = read(a, "state", h_filter(ch, "9007,40099,39000,39001,39002"));
  EXPECT_TRUE(contains_id(got, create.id_hex())) << "the 9007 is stored in the new channel";

  std::vector<Event> created = system_messages(got, "channel_created");
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0].pubkey_hex(), relay_pubkey());
  EXPECT_EQ(json_str(created[0].content, "actor"), a.hex);
  EXPECT_EQ(created[0].tags, (std::vector<Tag>{{"h", ch}}));

  auto meta = first_of_kind(got, 39000);
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->pubkey_hex(), relay_pubkey());
  EXPECT_EQ(meta->tags, (std::vector<Tag>{{"d", ch},
                                          {"name", "chan " + ch.substr(0, 8)},
                                          {"about", "the about text"},
                                          {"private"},
                                          {"closed"},
                                          {"t", "stream"}}));
  auto admins = first_of_kind(got, 39001);
  ASSERT_TRUE(admins);
  EXPECT_EQ(admins->pubkey_hex(), relay_pubkey());
  EXPECT_EQ(admins->tags, (std::vector<Tag>{{"d", ch}, {"p", a.hex, "owner"}}));
  auto members = first_of_kind(got, 39002);
  ASSERT_TRUE(members);
  EXPECT_EQ(members->pubkey_hex(), relay_pubkey());
  EXPECT_EQ(members->tags, (std::vector<Tag>{{"d", ch}, {"p", a.hex, "", "owner"}}));

  // The group state is also found by its d tag.
  std::vector<Event> by_d = read(a, "byd", R"({"kinds":[39000],"#d":[")" + ch + R"("]})");
  ASSERT_EQ(by_d.size(), 1u);
  EXPECT_EQ(by_d[0].id_hex(), meta->id_hex());

  // 44100 to the creator, with actor = creator.
  std::vector<Event> notes = read(a, "notes", p_filter(a.hex, "44100"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].pubkey_hex(), relay_pubkey());
  EXPECT_TRUE(has_tag(notes[0], {"p", a.hex}));
  EXPECT_TRUE(has_tag(notes[0], {"h", ch}));
  EXPECT_EQ(json_str(notes[0].content, "actor"), a.hex);
  EXPECT_EQ(json_str(notes[0].content, "channel_id"), ch);
  EXPECT_EQ(json_str(notes[0].content, "type"), "member_added");
}

TEST_F(ChannelTest, CreateWithoutHIsStoredInTheNewChannelWhoseIdComesFrom44100) {
  Peer a = user();
  ASSERT_TRUE(a.c);
  subscribe(a, "glob", R"({"kinds":[9007],"authors":[")" + a.hex + R"("]})");
  Event create = make_event(a.key, 9007, "", {{"name", "no h"}, {"visibility", "open"}, {"channel_type", "forum"}});
  OkReply ok = a->publish(create);
  ASSERT_TRUE(ok.accepted) << ok.reason;
  // Upstream stores a 9007 without h globally, which would show a private channel's
  // name to everyone; Buzz stores it in the channel it creates (docs/channels.md).
  EXPECT_FALSE(receives(a, "glob", create.id_hex(), 300)) << "a 9007 reached a global subscription";

  std::vector<Event> notes = read(a, "notes", p_filter(a.hex, "44100"));
  ASSERT_EQ(notes.size(), 1u);
  const std::string ch = json_str(notes[0].content, "channel_id");
  ASSERT_EQ(ch.size(), 36u) << notes[0].content;
  EXPECT_TRUE(std::none_of(ch.begin(), ch.end(), [](unsigned char x) { return std::isupper(x); })) << ch;
  EXPECT_TRUE(has_tag(notes[0], {"h", ch}));
  EXPECT_EQ(json_str(notes[0].content, "type"), "member_added");

  std::vector<Event> got = read(a, "state", h_filter(ch, "40099,39000,39001,9007"));
  EXPECT_EQ(system_messages(got, "channel_created").size(), 1u);
  EXPECT_TRUE(std::any_of(got.begin(), got.end(), [&](const Event& e) { return e.id == create.id; }));
  auto meta = first_of_kind(got, 39000);
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->tags, (std::vector<Tag>{{"d", ch}, {"name", "no h"}, {"public"}, {"closed"}, {"t", "forum"}}));
  auto admins = first_of_kind(got, 39001);
  ASSERT_TRUE(admins);
  EXPECT_EQ(admins->tags, (std::vector<Tag>{{"d", ch}, {"p", a.hex, "owner"}}));
  // The new channel works.
  post(a, ch);
}

TEST_F(ChannelTest, CreateWithAnExistingIdIsRefusedAsDuplicate) {
  Peer a = user(), b = user();
  ASSERT_TRUE(a.c && b.c);
  const std::string ch = create(a, "open");
  for (Peer* who : {&a, &b}) {
    OkReply ok = (*who)->publish(create_event(*who, ch, "private"));
    ASSERT_TRUE(ok.received);
    EXPECT_FALSE(ok.accepted);
    EXPECT_EQ(ok.reason, "duplicate: channel already exists");
  }
  // The channel is unchanged: still open, still owned by a only.
  std::vector<Event> got = read(a, "state", h_filter(ch, "39000,39001"));
  auto meta = first_of_kind(got, 39000);
  ASSERT_TRUE(meta);
  EXPECT_TRUE(has_tag(*meta, {"public"}));
  auto admins = first_of_kind(got, 39001);
  ASSERT_TRUE(admins);
  EXPECT_EQ(admins->tags, (std::vector<Tag>{{"d", ch}, {"p", a.hex, "owner"}}));
}

TEST_F(ChannelTest, CreateValidatesNameVisibilityAndType) {
  Peer a = user();
  ASSERT_TRUE(a.c);
  struct Case {
    std::vector<Tag> tags;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {{{"h", new_uuid()}}, "invalid: channel name is required"},
      {{{"h", new_uuid()}, {"name", "   "}}, "invalid: channel name is required"},
      {{{"h", new_uuid()}, {"name", "x"}, {"visibility", "secret"}}, "invalid visibility: secret"},
      {{{"h", new_uuid()}, {"name", "x"}, {"channel_type", "dm"}}, "invalid channel_type: dm"},
      {{{"h", new_uuid()}, {"name", "x"}, {"channel_type", "chat"}}, "invalid channel_type: chat"},
  };
  for (const Case& c : cases) {
    Event e = make_event(a.key, 9007, "", c.tags);
    SCOPED_TRACE(e.raw);
    OkReply ok = a->publish(e);
    ASSERT_TRUE(ok.received);
    EXPECT_FALSE(ok.accepted);
    EXPECT_EQ(ok.reason, c.reason);
    // Nothing was created.
    ReqResult state = a->req("state" + e.id_hex().substr(0, 8), h_filter(c.tags[0][1], "39000"));
    EXPECT_TRUE(state.events.empty());
    EXPECT_TRUE(state.closed) << "the channel must not exist: " << why(state);
  }
  // The nil UUID is never a channel.
  OkReply nil = a->publish(
      make_event(a.key, 9007, "", {{"h", "00000000-0000-0000-0000-000000000000"}, {"name", "nil"}}));
  ASSERT_TRUE(nil.received);
  EXPECT_FALSE(nil.accepted) << "creating the nil UUID must fail; got OK true \"" << nil.reason << "\"";
}

// --- posting -----------------------------------------------------------------

TEST_F(ChannelTest, NonMemberCannotPostToPrivateChannel) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string ch = create(a, "private");
  for (uint16_t kind : {9, 40002, 40100, 45001}) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    OkReply ok = c->publish(make_event(c.key, kind, unique_text("intrude"), {{"h", ch}}));
    ASSERT_TRUE(ok.received);
    EXPECT_FALSE(ok.accepted);
    EXPECT_EQ(ok.reason, kNotMember);
  }
  // The owner posts fine.
  post(a, ch);
}

TEST_F(ChannelTest, NonMemberMayPostToOpenChannel) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string ch = create(a, "open");
  Event e = message(c, ch);
  OkReply ok = c->publish(e);
  EXPECT_TRUE(ok.accepted) << ok.reason;
  EXPECT_EQ(ok.reason, "");
  std::vector<Event> got = read(a, "h", h_filter(ch));
  EXPECT_TRUE(contains_id(got, e.id_hex()));
}

TEST_F(ChannelTest, PostToUnknownChannelIsRestricted) {
  Peer c = user();
  ASSERT_TRUE(c.c);
  OkReply ok = c->publish(message(c, new_uuid()));
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, kNotMember);
}

TEST_F(ChannelTest, NonCanonicalHIsRefused) {
  Peer a = user();
  ASSERT_TRUE(a.c);
  const std::string ch = create(a, "open");
  std::string no_hyphens = ch;
  std::erase(no_hyphens, '-');
  for (const std::string& h : {to_upper(ch), no_hyphens, "{" + ch + "}", "urn:uuid:" + ch}) {
    SCOPED_TRACE(h);
    OkReply ok = a->publish(make_event(a.key, 9, unique_text("x"), {{"h", h}}));
    ASSERT_TRUE(ok.received);
    EXPECT_FALSE(ok.accepted);
    EXPECT_EQ(ok.reason, "invalid: h tag must be a canonical lowercase UUID");
  }
}

TEST_F(ChannelTest, ChannelKindWithoutHIsRefused) {
  Peer a = user();
  ASSERT_TRUE(a.c);
  for (std::vector<Tag> tags : {std::vector<Tag>{}, std::vector<Tag>{{"h", "general"}}, std::vector<Tag>{{"h"}}}) {
    for (uint16_t kind : {9, 40003, 9000, 9001, 9002, 9005, 9008, 9022}) {
      Event e = make_event(a.key, kind, unique_text("no h"), tags);
      SCOPED_TRACE(e.raw);
      OkReply ok = a->publish(e);
      ASSERT_TRUE(ok.received);
      EXPECT_FALSE(ok.accepted);
      EXPECT_EQ(ok.reason, "invalid: channel-scoped events must include an h tag");
    }
  }
  OkReply join = a->publish(make_event(a.key, 9021, "", {}));
  EXPECT_EQ(join.reason, "invalid: missing or invalid h tag");
}

// --- reading -----------------------------------------------------------------

TEST_F(ChannelTest, NonMemberReqOnPrivateChannelIsClosed) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string ch = create(a, "private");
  post(a, ch);
  const std::vector<std::string> refused = {
      h_filter(ch),
      R"({"#h":[")" + ch + R"("]})",
      h_filter(ch, "40099,39000,39001,39002"),
      h_filter(ch) + "," + h_filter(ch, "7"),
      R"({"kinds":[20002],"#h":[")" + ch + R"("]})",
  };
  for (size_t i = 0; i < refused.size(); ++i) {
    SCOPED_TRACE(refused[i]);
    ReqResult r = c->req("priv" + std::to_string(i), refused[i]);
    EXPECT_TRUE(r.events.empty());
    ASSERT_TRUE(r.closed) << why(r);
    EXPECT_EQ(*r.closed, kNotMember);
  }
  // An uppercase spelling of the id does not get around it.
  ReqResult upper = c->req("upper", h_filter(to_upper(ch)));
  EXPECT_TRUE(upper.events.empty());
  // The refused subscriptions were never registered: nothing arrives live.
  post(a, ch);
  EXPECT_EQ(event_on(c, "priv0"), "");
  EXPECT_EQ(event_on(c, "upper"), "");
}

TEST_F(ChannelTest, MemberReqGetsHistoryAndLiveEvents) {
  Peer a = user(), b = user();
  ASSERT_TRUE(a.c && b.c);
  const std::string ch = create(a, "private");
  Event old = post(a, ch);
  add(a, ch, b);
  std::vector<Event> history = read(b, "live", h_filter(ch));
  EXPECT_EQ(ids_of(history), std::vector<std::string>{old.id_hex()});
  Event fresh = post(a, ch);
  EXPECT_TRUE(receives(b, "live", fresh.id_hex()));
}

TEST_F(ChannelTest, GlobalSubscriptionNeverReceivesChannelEventsLive) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string priv = create(a, "private");
  const std::string open = create(a, "open");
  const std::string by_a = R"({"kinds":[9,7,5,40099,39000],"authors":[")" + a.hex + R"("]})";
  subscribe(a, "mine", by_a);  // a member's global subscription
  subscribe(c, "spy", by_a);   // a non-member's
  subscribe(c, "mention", p_filter(c.hex, "9"));
  Event m = post(a, priv, {{"p", c.hex}});
  Event reaction = make_event(a.key, 7, "+", {{"e", m.id_hex()}});
  ASSERT_TRUE(a->publish(reaction).accepted);
  post(a, open);  // an open channel's event is a channel event too
  EXPECT_EQ(event_on(a, "mine"), "");
  EXPECT_EQ(event_on(c, "spy"), "");
  EXPECT_EQ(event_on(c, "mention"), "");
  // A global event still reaches the global subscriptions (the setup works).
  subscribe(c, "notes", R"({"kinds":[1],"authors":[")" + a.hex + R"("]})");
  Event note = make_event(a.key, 1, unique_text("global"));
  ASSERT_TRUE(a->publish(note).accepted);
  EXPECT_TRUE(receives(c, "notes", note.id_hex()));
}

// A REQ naming several channels in every filter's #h (a client's whole
// channel list) gets the live events of those its caller may read, and only
// while it may: never a private channel's it is not (or no longer) a member of.
TEST_F(ChannelTest, SeveralChannelsInOneReqGetLiveEventsOfReadableOnes) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string priv = create(a, "private");
  const std::string shared = create(a, "private");
  const std::string open = create(a, "open");
  const std::string other = create(a, "open");
  add(a, shared, c);
  const std::string all = R"({"kinds":[9],"#h":[")" + priv + R"(",")" + shared + R"(",")" + open + R"("],"limit":0})";
  subscribe(c, "list", all + R"(,{"kinds":[7],"#h":[")" + priv + R"(",")" + open + R"("],"limit":0})");
  subscribe(a, "owner", all);
  Event secret = post(a, priv, {{"p", c.hex}});
  Event reaction = make_event(a.key, 7, "+", {{"e", secret.id_hex()}});
  ASSERT_TRUE(a->publish(reaction).accepted);
  post(a, other);  // a channel the REQ does not name
  Event in_shared = post(a, shared);
  Event in_open = post(a, open);
  EXPECT_TRUE(receives(c, "list", in_shared.id_hex()));
  EXPECT_TRUE(receives(c, "list", in_open.id_hex()));
  EXPECT_TRUE(receives(a, "owner", secret.id_hex()));  // the setup works for a member
  // Removed from the shared channel: its events stop at once.
  ASSERT_TRUE(remove(a, shared, c.hex).accepted);
  Event after = post(a, shared);
  Event open_again = post(a, open);
  EXPECT_TRUE(receives(a, "owner", after.id_hex()));
  EXPECT_TRUE(receives(c, "list", open_again.id_hex()));
  EXPECT_EQ(event_on(c, "list"), "") << "nothing else: not the private channel's, nor the unnamed one's";
  for (const std::string& leaked : {secret.id_hex(), reaction.id_hex(), after.id_hex()}) {
    EXPECT_FALSE(c->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.event.id_hex() == leaked; }, 0))
        << "a private channel's event reached a non-member";
  }
}

TEST_F(ChannelTest, GlobalReplayIncludesOnlyReadableChannels) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string priv = create(a, "private");
  const std::string open = create(a, "open");
  add(a, priv, b);
  Event secret = post(a, priv, {{"p", c.hex}, {"p", b.hex}});  // mentions a non-member too
  Event reaction = make_event(a.key, 7, "+", {{"e", secret.id_hex()}});
  ASSERT_TRUE(a->publish(reaction).accepted);
  Event shown = post(a, open, {{"p", c.hex}, {"p", b.hex}});
  const std::string by_a = R"({"kinds":[9,7],"authors":[")" + a.hex + R"("]})";
  // The private channel's own admin events (9007 with h, 9000, 9002) are channel events too.
  ASSERT_TRUE(edit_meta(a, priv, {{"topic", "secret plans"}}).accepted);
  for (const Event& e : read(c, "admin", R"({"kinds":[9007,9000,9002],"authors":[")" + a.hex + R"("]})")) {
    EXPECT_FALSE(has_tag(e, {"h", priv})) << "a non-member reads " << e.raw;
  }
  const std::string admin_in_priv =
      R"({"kinds":[9007,9000,9002],"authors":[")" + a.hex + R"("],"#h":[")" + priv + R"("]})";
  EXPECT_EQ(read(b, "admin", admin_in_priv).size(), 3u);

  std::vector<std::string> outsider = ids_of(read(c, "g1", by_a));
  EXPECT_EQ(outsider, std::vector<std::string>{shown.id_hex()});
  std::vector<std::string> member = ids_of(read(b, "g1", by_a));
  std::sort(member.begin(), member.end());
  std::vector<std::string> want = {secret.id_hex(), reaction.id_hex(), shown.id_hex()};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(member, want);

  // Mentions (single #p through the mention index), #e lookups, two-channel filters.
  EXPECT_EQ(ids_of(read(c, "g2", p_filter(c.hex, "9"))), std::vector<std::string>{shown.id_hex()});
  EXPECT_EQ(read(b, "g2", p_filter(b.hex, "9")).size(), 2u);
  EXPECT_TRUE(read(c, "g3", R"({"kinds":[7],"#e":[")" + secret.id_hex() + R"("]})").empty());
  EXPECT_EQ(read(b, "g3", R"({"kinds":[7],"#e":[")" + secret.id_hex() + R"("]})").size(), 1u);
  EXPECT_EQ(ids_of(read(c, "g4", R"({"kinds":[9],"#h":[")" + priv + R"(",")" + open + R"("]})")),
            std::vector<std::string>{shown.id_hex()});
  // The private channel's relay-signed state and system messages are hidden too.
  for (const std::string& f : {R"({"kinds":[39000,39001,39002],"#d":[")" + priv + R"("]})",
                               R"({"kinds":[40099,39000,39001,39002],"authors":[")" + relay_pubkey() +
                                   R"("],"#d":[")" + priv + R"("]})",
                               R"({"kinds":[40099],"authors":[")" + relay_pubkey() + R"("],"since":)" +
                                   std::to_string(unix_now() - 60) + "}"}) {
    SCOPED_TRACE(f);
    for (const Event& e : read(c, "g5" + std::to_string(f.size()), f)) {
      EXPECT_FALSE(has_tag(e, {"h", priv}) || has_tag(e, {"d", priv})) << e.raw;
    }
  }
  std::vector<Event> discovery = read(c, "g6", R"({"kinds":[39000],"authors":[")" + relay_pubkey() + R"("]})");
  bool sees_priv = false, sees_open = false;
  for (const Event& e : discovery) {
    sees_priv |= has_tag(e, {"d", priv});
    sees_open |= has_tag(e, {"d", open});
  }
  EXPECT_FALSE(sees_priv) << "a non-member's 39000 discovery lists the private channel";
  EXPECT_TRUE(sees_open);
  EXPECT_EQ(read(b, "g7", R"({"kinds":[39000],"#d":[")" + priv + R"("]})").size(), 1u);
}

// The relay's group state (39000–39002) reaches a global subscription naming
// its kinds live, for the channels its caller may read and no other: how a
// client learns of the channels opened, renamed or archived with one REQ
// (docs/reference/protocol.md §9.5). A private channel's never reaches a
// non-member: not live, not a removed member, not in history, not counted.
TEST_F(ChannelTest, GroupStateReachesGlobalSubscriptionsOfItsReadersOnly) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string state = R"({"kinds":[39000,39001,39002],"since":)" + std::to_string(unix_now()) + "}";
  subscribe(a, "state", state);
  subscribe(b, "state", state);
  subscribe(c, "state", state);
  subscribe(c, "wildcard", R"({"since":)" + std::to_string(unix_now()) + "}");
  auto named = [](const std::string& channel, const std::string& name) {
    return [=](const RelayMessage& m) {
      return m.type == "EVENT" && m.id == "state" && m.event.kind == 39000 && has_tag(m.event, {"d", channel}) &&
             has_tag(m.event, {"name", name});
    };
  };
  auto of_channel = [](const std::string& channel) {
    return [=](const RelayMessage& m) {
      return m.type == "EVENT" && (has_tag(m.event, {"d", channel}) || has_tag(m.event, {"h", channel}));
    };
  };
  const std::string priv = create(a, "private");
  add(a, priv, b);
  const std::string open = create(a, "open");
  ASSERT_TRUE(edit_meta(a, priv, {{"name", "secret plans"}}).accepted);
  ASSERT_TRUE(edit_meta(a, open, {{"name", "lobby renamed"}}).accepted);
  EXPECT_TRUE(b->wait_for(named(priv, "secret plans")));
  EXPECT_TRUE(b->wait_for(named(open, "lobby renamed")));
  EXPECT_TRUE(c->wait_for(named(open, "lobby renamed"))) << "an open channel's rename reaches every reader";
  EXPECT_FALSE(c->wait_for(of_channel(priv), kQuietMs)) << "a private channel's state reached a non-member";
  EXPECT_FALSE(c->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.id == "wildcard" && m.event.kind == 39000; }, 0))
      << "a wildcard subscription got a channel's group state";

  // The open channel turned private, and b removed from the private one: the
  // owner sees both channels' next state, which reaches no one else.
  ASSERT_TRUE(edit_meta(a, open, {{"visibility", "private"}, {"name", "lobby closed"}}).accepted);
  ASSERT_TRUE(remove(a, priv, b.hex).accepted);
  ASSERT_TRUE(edit_meta(a, priv, {{"name", "after b left"}}).accepted);
  EXPECT_TRUE(a->wait_for(named(priv, "after b left")));
  EXPECT_TRUE(a->wait_for(named(open, "lobby closed")));
  for (Peer* p : {&b, &c}) {
    EXPECT_FALSE((*p)->wait_for(named(priv, "after b left"), kQuietMs)) << "a removed member or a non-member got the state";
    EXPECT_FALSE((*p)->wait_for(named(open, "lobby closed"), 0)) << "a channel turned private showed its state to a non-member";
  }
  EXPECT_FALSE(c->wait_for(of_channel(priv), 0));

  // History and COUNT read by the same rule.
  const std::string by_d = R"({"kinds":[39000,39001,39002],"#d":[")" + priv + R"(",")" + open + R"("]})";
  EXPECT_TRUE(read(c, "history", by_d).empty());
  EXPECT_EQ(read(a, "history", by_d).size(), 6u);
  auto counted = c->count("n", by_d);
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->count, 0) << counted->raw;
}

TEST_F(ChannelTest, CountOnPrivateChannelIsZeroForNonMembers) {
  Peer a = user(), b = user(), c = user();
  ASSERT_TRUE(a.c && b.c && c.c);
  const std::string ch = create(a, "private");
  add(a, ch, b);
  for (int i = 0; i < 3; ++i) post(a, ch);
  auto outsider = c->count("n", h_filter(ch));
  ASSERT_TRUE(outsider);
  EXPECT_EQ(outsider->type, "COUNT") << outsider->raw;
  EXPECT_EQ(outsider->count, 0);
  auto member = b->count("n", h_filter(ch));
  ASSERT_TRUE(member);
  EXPECT_EQ(member->count, 3) << member->raw;
  // Global COUNTs leave out unreadable channels too.
  const std::string by_a = R"({"kinds":[9],"authors":[")" + a.hex + R"("]})";
  auto global_outsider = c->count("g", by_a);
  ASSERT_TRUE(global_outsider);
  EXPECT_EQ(global_outsider->count, 0) << global_outsider->raw;
  auto global_member = b->count("g", by_a);
  ASSERT_TRUE(global_member);
  EXPECT_EQ(global_member->count, 3) << global_member->raw;
}

TEST_F(ChannelTest, IdsLookupOfPrivateEventByNonMemberReturnsNothing) {
  Peer a = user(), c = user();
  ASSERT_TRUE(a.c && c.c);
  const std::string ch = create(a, "private");
  Event m = post(a, ch);
  EXPECT_TRUE(read(c, "ids", ids_filter(m.id_hex())).empty());
  EXPECT_TRUE(read(c, "ids2", R"({"ids":[")" + m.id_hex() + R"("],"kinds":[9]})").empty());
  EXPECT_EQ(ids_of(read(a, "ids", ids_filter(m.id_hex()))), std::vector<std::string>{m.id_hex()});
  auto n = c->count("n", ids_filter(m.id_hex()));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->count, 0) << n->raw;
}

// The membership notifications (44100 / 44101) are stored globally, though
// they carry the channel's h tag: #h names the channel an event is stored in,
// so no channel read shows them, and #p shows each its own (docs/reference/kinds.md §4.3,
// docs/reference/protocol.md §9.3–9.4); COUNT keeps the p-gate.
TEST_F(ChannelTest, MembershipNotificationsAreReadThroughPOnly) {
  Peer a = user(), b = user(), d = user();
  ASSERT_TRUE(a.c && b.c && d.c);
  const std::string ch = create(a, "open");
  add(a, ch, b);
  ASSERT_TRUE(d->publish(make_event(d.key, 9021, "", {{"h", ch}})).accepted);  // d joins: a reader of the channel
  const std::string gated = h_filter(ch, "44100,44101");
  for (Peer* reader : {&a, &b, &d}) {
    EXPECT_EQ(read(*reader, "by-h", gated).size(), 0u) << "a notification read through #h by " << reader->hex;
    std::vector<Event> own = read(*reader, "by-p", p_filter(reader->hex, "44100"));
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own[0].first_tag_value("h"), ch);
  }
  auto n = d->count("n", gated);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->type, "COUNT");
  EXPECT_EQ(n->count, 0);
  // Live as well: e joining notifies e, not d.
  subscribe(d, "live", gated);
  Peer e = user();
  ASSERT_TRUE(e.c);
  ASSERT_TRUE(e->publish(make_event(e.key, 9021, "", {{"h", ch}})).accepted);
  EXPECT_EQ(event_on(d, "live"), "");
}

// docs/reference/protocol.md §9.1 step 4: only #h values that parse as UUIDs scope a
// subscription to a channel; others leave it global.
TEST_F(ChannelTest, OnlyUuidHValuesScopeASubscription) {
  Peer owner = user(), other = user();
  ASSERT_TRUE(owner.c && other.c);
  const std::string secret = create(owner, "private");
  ReqResult junk = other->req("junk", R"({"kinds":[9],"#h":["not-a-uuid"]})");
  EXPECT_TRUE(junk.eose) << why(junk);
  ReqResult scoped = other->req("scoped", R"({"kinds":[9],"#h":[")" + secret + R"(","not-a-uuid"]})");
  ASSERT_TRUE(scoped.closed) << why(scoped);
  EXPECT_EQ(*scoped.closed, kNotMember);
}

// docs/reference/protocol.md §11: a relay-signed event is its effective author's to delete
// (its actor tag, else its first p tag) and nobody else's.
TEST_F(ChannelTest, RelaySignedEventsAreDeletedByTheirEffectiveAuthor) {
  Peer a = user(), b = user(), d = user();
  ASSERT_TRUE(a.c && b.c && d.c);
  const std::string ch = create(a, "open");
  add(a, ch, b);
  std::vector<Event> notes = read(b, "notes", p_filter(b.hex, "44100"));
  ASSERT_EQ(notes.size(), 1u);
  const Event& note = notes[0];  // relay-signed, ["p", b]
  // d may not read b's notification, so to d it is absent (docs/access.md).
  EXPECT_EQ(d->publish(make_event(d.key, 5, "", {{"e", note.id_hex()}})).reason, "invalid: target event not found");
  OkReply own = b->publish(make_event(b.key, 5, "", {{"e", note.id_hex()}}));
  EXPECT_TRUE(own.accepted) << own.reason;
  EXPECT_EQ(read(b, "after", p_filter(b.hex, "44100")).size(), 0u);
}

// An event belongs to the one channel it was admitted to (the first UUID h
// tag, docs/reference/channels.md §1). A second h tag, or an h tag on a global kind, must
// not put it in front of another channel's readers: a member of an open
// channel must not be able to write into a private one it is not in.
TEST_F(ChannelTest, ExtraHTagsDoNotPlaceAnEventInAnotherChannel) {
  Peer owner = user(), intruder = user();
  ASSERT_TRUE(owner.c && intruder.c);
  const std::string secret = create(owner, "private"), lobby = create(owner, "open");
  ASSERT_TRUE(intruder->publish(make_event(intruder.key, 9021, "", {{"h", lobby}})).accepted);
  Event smuggled = make_event(intruder.key, 9, "fake announcement", {{"h", lobby}, {"h", secret}});
  ASSERT_TRUE(intruder->publish(smuggled).accepted);  // a message of the lobby
  Event canvas = make_event(intruder.key, 40100, "# fake canvas", {{"h", lobby}, {"h", secret}});
  ASSERT_TRUE(intruder->publish(canvas).accepted);
  Event global = make_event(intruder.key, 1, "global note", {{"h", secret}});
  ASSERT_TRUE(intruder->publish(global).accepted);  // kind 1 is global whatever its tags
  std::vector<Event> in_secret = read(owner, "secret", h_filter(secret, "1,9,40100"));
  EXPECT_EQ(ids_of(in_secret), std::vector<std::string>{}) << "an intruder's event shown in the private channel";
  EXPECT_EQ(ids_of(read(owner, "lobby", h_filter(lobby, "9"))), std::vector<std::string>{smuggled.id_hex()});
  // The REST views of the private channel read the same way.
  auto rest = [&](const std::string& path) { return rest_get(owner.key, path); };
  EXPECT_EQ(rest("/api/channels/" + secret + "/canvas").body, R"({"content":null})");
  HttpReply messages = rest("/api/channels/" + secret + "/messages?kinds=1,9");
  EXPECT_EQ(messages.status, 200);
  EXPECT_EQ(messages.body.find("fake"), std::string::npos) << messages.body;
  EXPECT_EQ(messages.body.find("global note"), std::string::npos) << messages.body;
}

}  // namespace
}  // namespace buzz::test
