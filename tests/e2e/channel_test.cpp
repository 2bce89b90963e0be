// End-to-end tests of the team model against the real `buzz` binary
// (BUZZ_BINARY): channels and their NIP-29 administration kinds, the
// permission matrix, DMs, threads, reactions, edits, deletion, gift wraps,
// typing and presence, and restart durability. Expected texts are the exact
// wire strings of shared/spec/channels.md, kinds.md and protocol.md.
//
// The worst possible bug here is a private channel's event reaching a
// non-member, so every path by which that could happen (channel REQ, global
// REQ replay and live, COUNT, ids lookup, mentions, relay-signed state,
// reactions, typing, revocation on removal / visibility flip / deletion) has a
// test of its own.
//
// One relay (`--open`) serves the whole ChannelTest suite; each test uses
// fresh keypairs and fresh channels, so tests may run in any order.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/event.h"
#include "engine/hex.h"
#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tools/client/ws_client.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;
using engine::Tag;

constexpr int kQuietMs = 300;  // how long "nothing arrives" is watched for
const char kRevoked[] = "restricted: channel access revoked";
const char kNotMember[] = "restricted: not a channel member";
const char kNotAuthorizedMeta[] = "invalid: actor not authorized for name/about/archived/visibility/ttl changes";

std::unique_ptr<RelayProcess> start_relay(const RelayOptions& opts) {
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  EXPECT_NE(relay, nullptr) << error;
  return relay;
}


std::string to_upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

// A fresh canonical lowercase version-4 UUID (channels.md §1).
std::string new_uuid() {
  uint8_t b[16];
  engine::random_bytes(b, sizeof b);
  b[6] = uint8_t((b[6] & 0x0f) | 0x40);
  b[8] = uint8_t((b[8] & 0x3f) | 0x80);
  std::string h = engine::to_hex(b, sizeof b);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

// Content that makes every event unique, so two posts in one second never share an id.
std::string unique_text(const std::string& what) {
  static std::atomic<int> n{0};
  return what + " #" + std::to_string(++n);
}

std::vector<std::string> ids_of(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.id_hex());
  return out;
}

bool contains_id(const std::vector<Event>& events, const std::string& id) {
  return std::any_of(events.begin(), events.end(), [&](const Event& e) { return e.id_hex() == id; });
}

bool has_tag(const Event& e, const Tag& tag) { return std::find(e.tags.begin(), e.tags.end(), tag) != e.tags.end(); }

// Why a REQ did not end in EOSE, for failure messages.
std::string why(const ReqResult& r) {
  return r.eose ? "EOSE" : r.closed ? "CLOSED \"" + *r.closed + "\"" : "no EOSE or CLOSED in time";
}

// A string field of a JSON object text ("" if absent or not a string).
std::string json_str(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  std::string_view v;
  if (parser.parse(json)[key].get_string().get(v)) return {};
  return std::string(v);
}

// A boolean field of a JSON object text.
std::optional<bool> json_bool(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  bool v = false;
  if (parser.parse(json)[key].get_bool().get(v)) return std::nullopt;
  return v;
}

// {"kinds":[<kinds>],"#h":["<channel>"]}
std::string h_filter(const std::string& channel, const std::string& kinds = "9") {
  return R"({"kinds":[)" + kinds + R"(],"#h":[")" + channel + R"("]})";
}

// {"kinds":[<kinds>],"#p":["<pubkey>"]}
std::string p_filter(const std::string& pubkey, const std::string& kinds) {
  return R"({"kinds":[)" + kinds + R"(],"#p":[")" + pubkey + R"("]})";
}

std::string ids_filter(const std::string& id) { return R"({"ids":[")" + id + R"("]})"; }

// An OK false with exactly this reason.
void expect_refused(const OkReply& r, const std::string& reason) {
  EXPECT_TRUE(r.received) << "no OK for: " << reason;
  EXPECT_FALSE(r.accepted) << reason;
  EXPECT_EQ(r.reason, reason);
}

// One user: a fresh keypair and an authenticated connection.
struct Peer {
  Keypair key;
  std::string hex;
  std::unique_ptr<NostrClient> c;

  NostrClient& operator*() { return *c; }
  NostrClient* operator->() { return c.get(); }
};

Peer make_peer(const RelayProcess& relay) {
  Peer p;
  p.key = engine::generate_keypair();
  p.hex = hex(p.key);
  std::string error;
  p.c = NostrClient::connect_authed(relay, p.key, &error);
  EXPECT_NE(p.c, nullptr) << error;
  return p;
}

// A REQ that must end in EOSE.
std::vector<Event> read(Peer& p, const std::string& sub, const std::string& filters) {
  ReqResult r = p->req(sub, filters);
  EXPECT_TRUE(r.eose) << sub << " " << filters << ": " << why(r);
  return r.events;
}

// Opens a live subscription (its history is ignored).
void subscribe(Peer& p, const std::string& sub, const std::string& filters) {
  ReqResult r = p->req(sub, filters);
  ASSERT_TRUE(r.eose) << sub << " " << filters << ": " << why(r);
}

// The live EVENT with this id on this subscription, waited for up to timeout_ms.
bool receives(Peer& p, const std::string& sub, const std::string& id, int timeout_ms = kReplyTimeoutMs) {
  return p->wait_for([&](const RelayMessage& m) { return m.type == "EVENT" && m.id == sub && m.event.id_hex() == id; },
                     timeout_ms)
      .has_value();
}

// The first EVENT frame that arrives on this subscription within the quiet
// window, or "" (compared with "" so that a failure shows what leaked).
// Events already sent in the replay (`seen`) do not count: an event committed
// just before the REQ may also come live, and clients dedupe by id.
std::string event_on(Peer& p, const std::string& sub, const std::vector<Event>& seen = {}) {
  auto m = p->wait_for(
      [&](const RelayMessage& r) { return r.type == "EVENT" && r.id == sub && !contains_id(seen, r.event.id_hex()); },
      kQuietMs);
  return m ? m->raw : "";
}

// The CLOSED for this subscription, if one arrives in time.
std::optional<std::string> closed_reason(Peer& p, const std::string& sub, int timeout_ms = kReplyTimeoutMs) {
  auto m = p->wait_for([&](const RelayMessage& r) { return r.type == "CLOSED" && r.id == sub; }, timeout_ms);
  if (!m) return std::nullopt;
  return m->text;
}

// The newest event of a kind in a list (REQ results come newest first).
std::optional<Event> first_of_kind(const std::vector<Event>& events, uint16_t kind) {
  for (const Event& e : events) {
    if (e.kind == kind) return e;
  }
  return std::nullopt;
}

// The 40099 system messages of a list whose content has "type": type.
std::vector<Event> system_messages(const std::vector<Event>& events, const std::string& type) {
  std::vector<Event> out;
  for (const Event& e : events) {
    if (e.kind == 40099 && json_str(e.content, "type") == type) out.push_back(e);
  }
  return out;
}

// ---------------------------------------------------------------------------

class ChannelTest : public ::testing::Test {
 protected:
  // Its tests send at test speed, past a human's frame and message limits
  // (protocol.md §14, tested in rate_limit_test.cpp).
  static void SetUpTestSuite() {
    relay_ = start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, {}, ""});
    if (relay_) relay_pubkey_ = relay_self_pubkey(*relay_);
  }
  static void TearDownTestSuite() { relay_.reset(); }
  void SetUp() override { ASSERT_NE(relay_, nullptr) << "the relay did not start"; }

  static Peer user() { return make_peer(*relay_); }
  // A second authenticated connection for the same pubkey.
  static Peer another_connection(const Peer& p) {
    std::string error;
    Peer again{p.key, p.hex, NostrClient::connect_authed(*relay_, p.key, &error)};
    EXPECT_NE(again.c, nullptr) << error;
    return again;
  }
  static const std::string& relay_pubkey() { return relay_pubkey_; }

  // A 9007 with a client-chosen id; extra tags go after h, name, visibility.
  static Event create_event(Peer& owner, const std::string& id, const std::string& visibility,
                            std::vector<Tag> extra = {}) {
    std::vector<Tag> tags = {{"h", id}, {"name", "chan " + id.substr(0, 8)}, {"visibility", visibility}};
    for (auto& t : extra) tags.push_back(std::move(t));
    return make_event(owner.key, 9007, "", std::move(tags));
  }

  // Creates a channel and returns its id (the 9007 must be accepted).
  static std::string create(Peer& owner, const std::string& visibility, std::vector<Tag> extra = {}) {
    std::string id = new_uuid();
    OkReply ok = owner->publish(create_event(owner, id, visibility, std::move(extra)));
    EXPECT_TRUE(ok.accepted) << "9007: " << ok.reason;
    return id;
  }

  // The admin helpers put unique text in the (ignored) content, so that
  // repeating a command is a new event and not a "duplicate:".

  // kind 9000: actor puts target into the channel (role "" = no role tag).
  static OkReply put_user(Peer& actor, const std::string& channel, const std::string& target_hex,
                          const std::string& role = "") {
    std::vector<Tag> tags = {{"h", channel}, {"p", target_hex}};
    if (!role.empty()) tags.push_back({"role", role});
    return actor->publish(make_event(actor.key, 9000, unique_text("put"), std::move(tags)));
  }
  static void add(Peer& actor, const std::string& channel, Peer& target, const std::string& role = "") {
    OkReply ok = put_user(actor, channel, target.hex, role);
    EXPECT_TRUE(ok.accepted) << "9000 " << role << ": " << ok.reason;
  }

  static OkReply remove(Peer& actor, const std::string& channel, const std::string& target_hex) {
    return actor->publish(make_event(actor.key, 9001, unique_text("remove"), {{"h", channel}, {"p", target_hex}}));
  }

  static OkReply edit_meta(Peer& actor, const std::string& channel, std::vector<Tag> tags) {
    tags.insert(tags.begin(), {"h", channel});
    return actor->publish(make_event(actor.key, 9002, unique_text("edit"), std::move(tags)));
  }

  // A kind-9 message (not yet published).
  static Event message(Peer& author, const std::string& channel, std::vector<Tag> extra = {}) {
    std::vector<Tag> tags = {{"h", channel}};
    for (auto& t : extra) tags.push_back(std::move(t));
    return make_event(author.key, 9, unique_text("hello"), std::move(tags));
  }

  // Posts a kind-9 message that must be accepted.
  static Event post(Peer& author, const std::string& channel, std::vector<Tag> extra = {}) {
    Event e = message(author, channel, std::move(extra));
    OkReply ok = author->publish(e);
    EXPECT_TRUE(ok.accepted) << "kind 9: " << ok.reason;
    return e;
  }
  // GET path over REST, NIP-98 signed by key.
  static HttpReply rest_get(const Keypair& key, const std::string& path) {
    const std::string url = "http://127.0.0.1:" + std::to_string(relay_->port()) + path;
    return http_call(relay_->port(), "GET", path, {{"Authorization", nip98_header(key, url, "GET", "")}});
  }

 private:
  static std::unique_ptr<RelayProcess> relay_;
  static std::string relay_pubkey_;
};

std::unique_ptr<RelayProcess> ChannelTest::relay_;
std::string ChannelTest::relay_pubkey_;

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
  subscribe(c, "two", R"({"kinds":[9],"#h":[")" + priv + R"(",")" + open + R"("]})");  // two channels = global
  subscribe(c, "mention", p_filter(c.hex, "9"));
  Event m = post(a, priv, {{"p", c.hex}});
  Event reaction = make_event(a.key, 7, "+", {{"e", m.id_hex()}});
  ASSERT_TRUE(a->publish(reaction).accepted);
  post(a, open);  // an open channel's event is a channel event too
  EXPECT_EQ(event_on(a, "mine"), "");
  EXPECT_EQ(event_on(c, "spy"), "");
  EXPECT_EQ(event_on(c, "two"), "");
  EXPECT_EQ(event_on(c, "mention"), "");
  // A global event still reaches the global subscriptions (the setup works).
  subscribe(c, "notes", R"({"kinds":[1],"authors":[")" + a.hex + R"("]})");
  Event note = make_event(a.key, 1, unique_text("global"));
  ASSERT_TRUE(a->publish(note).accepted);
  EXPECT_TRUE(receives(c, "notes", note.id_hex()));
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
// so no channel read shows them, and #p shows each its own (kinds.md §4.3,
// protocol.md §9.3–9.4); COUNT keeps the p-gate.
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
  EXPECT_EQ(n->text, "restricted: p-gated kinds require #p tag matching your pubkey");
  // Live as well: e joining notifies e, not d.
  subscribe(d, "live", gated);
  Peer e = user();
  ASSERT_TRUE(e.c);
  ASSERT_TRUE(e->publish(make_event(e.key, 9021, "", {{"h", ch}})).accepted);
  EXPECT_EQ(event_on(d, "live"), "");
}

// protocol.md §9.1 step 4: only #h values that parse as UUIDs scope a
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

// protocol.md §11: a relay-signed event is its effective author's to delete
// (its actor tag, else its first p tag) and nobody else's.
TEST_F(ChannelTest, RelaySignedEventsAreDeletedByTheirEffectiveAuthor) {
  Peer a = user(), b = user(), d = user();
  ASSERT_TRUE(a.c && b.c && d.c);
  const std::string ch = create(a, "open");
  add(a, ch, b);
  std::vector<Event> notes = read(b, "notes", p_filter(b.hex, "44100"));
  ASSERT_EQ(notes.size(), 1u);
  const Event& note = notes[0];  // relay-signed, ["p", b]
  EXPECT_EQ(d->publish(make_event(d.key, 5, "", {{"e", note.id_hex()}})).reason, "invalid: must be event author");
  OkReply own = b->publish(make_event(b.key, 5, "", {{"e", note.id_hex()}}));
  EXPECT_TRUE(own.accepted) << own.reason;
  EXPECT_EQ(read(b, "after", p_filter(b.hex, "44100")).size(), 0u);
}

// An event belongs to the one channel it was admitted to (the first UUID h
// tag, channels.md §1). A second h tag, or an h tag on a global kind, must
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
  ReqResult peek = c->req("peek", p_filter(d.hex, "44100,44101"));
  ASSERT_TRUE(peek.closed) << why(peek);
  EXPECT_EQ(*peek.closed, "restricted: p-gated events require #p matching your pubkey");
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

TEST_F(ChannelTest, WorkflowCommandsAreRefusedUntilWorkflowsExist) {
  Peer a = user();
  ASSERT_TRUE(a.c);
  const std::string ch = create(a, "open");
  const std::string refusal = "restricted: workflows are not enabled on this relay";
  expect_refused(a->publish(make_event(a.key, 30620, "name: x", {{"h", ch}, {"d", "x"}})), refusal);
  for (uint16_t kind : {46020, 46030, 46031}) {
    SCOPED_TRACE(kind);
    Event command = make_event(a.key, kind, "", {{"d", std::string(64, 'a')}});
    expect_refused(a->publish(command), refusal);
    EXPECT_TRUE(read(a, "cmd", ids_filter(command.id_hex())).empty());  // never stored
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
  // No h needed: the channel is the target's.
  expect_refused(c->publish(make_event(c.key, 7, "+", {{"e", m.id_hex()}})), kNotMember);
  // An h naming an open channel does not move it out of the private one.
  const std::string open = create(c, "open");
  OkReply sneaky = c->publish(make_event(c.key, 7, "+", {{"h", open}, {"e", m.id_hex()}}));
  EXPECT_EQ(sneaky.reason, kNotMember);

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
  ReqResult gated = c->req("gated", p_filter(a.hex, "41001"));
  ASSERT_TRUE(gated.closed) << why(gated);
  EXPECT_EQ(*gated.closed, "restricted: p-gated events require #p matching your pubkey");
  // The DM's 39000 carries hidden + the participants.
  auto meta = first_of_kind(read(b, "meta", h_filter(dm, "39000")), 39000);
  ASSERT_TRUE(meta);
  EXPECT_TRUE(has_tag(*meta, {"private"}) && has_tag(*meta, {"hidden"}) && has_tag(*meta, {"t", "dm"}));
  EXPECT_TRUE(has_tag(*meta, {"p", a.hex}) && has_tag(*meta, {"p", b.hex}));
  EXPECT_EQ(meta->first_tag_value("name"), "DM");

  // Hide: the OK is {} (kinds.md §2.5, protocol.md §4) and a 30622 for the viewer names the DM.
  OkReply hide = a->publish(make_event(a.key, 41012, "", {{"h", dm}}));
  EXPECT_TRUE(hide.accepted);
  EXPECT_EQ(hide.reason, "{}");
  std::vector<Event> hidden = read(a, "hidden", p_filter(a.hex, "30622"));
  ASSERT_EQ(hidden.size(), 1u);
  EXPECT_TRUE(has_tag(hidden[0], {"h", dm}));
  EXPECT_TRUE(has_tag(hidden[0], {"d", a.hex}));
  for (const Event& e : read(b, "hidden", p_filter(b.hex, "30622"))) EXPECT_FALSE(has_tag(e, {"h", dm})) << e.raw;
  ReqResult other_view = c->req("hidden", p_filter(a.hex, "30622"));
  EXPECT_TRUE(other_view.closed) << why(other_view);
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
    ASSERT_TRUE(r.closed) << why(r);
    EXPECT_EQ(*r.closed, "restricted: p-gated events require #p matching your pubkey");
  }
  EXPECT_TRUE(read(c, "own", p_filter(c.hex, "1059")).empty());
  auto n = c->count("n", p_filter(b.hex, "1059"));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->type, "CLOSED");
  EXPECT_EQ(n->text, "restricted: p-gated kinds require #p tag matching your pubkey");
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

// ---------------------------------------------------------------------------
// Restart: channels and memberships live in the data directory.

TEST(ChannelRestartTest, ChannelsAndMembershipsSurviveRestart) {
  char tmpl[] = "/tmp/buzz-channel-restart-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      if (!std::getenv("BUZZ_KEEP_TEST_DIRS")) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
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

}  // namespace
}  // namespace buzz::test

namespace buzz::test {
namespace {

// channels.md §5: a TTL channel past its deadline is archived by the reaper,
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

// BUZZ_EPHEMERAL_TTL_OVERRIDE replaces the ttl a 9007 carries (channels.md
// §4.5), so an hour-long channel expires in a second; one without a ttl is
// left alone.
TEST(ChannelReaperTest, TtlOverrideReplacesTheTtlOfEveryChannelThatHasOne) {
  RelayOptions o{{"--open", "--reaper-interval", "1"}, {{"BUZZ_EPHEMERAL_TTL_OVERRIDE", "1"}}, ""};
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
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));  // the deadline, then a reaper tick
  expect_refused(c->publish(make_event(owner, 9, "an hour, overridden", {{"h", hour}})), "invalid: channel is archived");
  EXPECT_TRUE(c->publish(make_event(owner, 9, "still open", {{"h", lasting}})).accepted);
}

}  // namespace
}  // namespace buzz::test
