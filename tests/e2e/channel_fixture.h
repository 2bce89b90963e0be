// ChannelTest: one open relay (`--open`, rate limits off) for the whole suite,
// whose tests are spread over channel_*test.cpp, and the helpers they share:
// peers (a keypair and its authenticated connection), channel admin commands,
// filters and what a subscription received. Each test uses fresh keypairs and
// fresh channels, so tests may run in any order. Expected texts are the exact
// wire strings of docs/reference/channels.md, docs/reference/kinds.md and docs/reference/protocol.md.
//
// The worst possible bug here is a private channel's event reaching a
// non-member, so every path by which that could happen (channel REQ, global
// REQ replay and live, COUNT, ids lookup, mentions, relay-signed state,
// reactions, typing, revocation on removal / visibility flip / deletion) has a
// test of its own.
#pragma once

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/hex.h"
#include "engine/signature.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {

inline constexpr char kNotMember[] = "restricted: not a channel member";
inline constexpr char kNotAuthorizedMeta[] = "invalid: actor not authorized for name/about/archived/visibility/ttl changes";

// A fresh canonical lowercase version-4 UUID (docs/reference/channels.md §1).
inline std::string new_uuid() {
  uint8_t b[16];
  engine::random_bytes(b, sizeof b);
  b[6] = uint8_t((b[6] & 0x0f) | 0x40);
  b[8] = uint8_t((b[8] & 0x3f) | 0x80);
  std::string h = engine::to_hex(b, sizeof b);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

// Content that makes every event unique, so two posts in one second never share an id.
inline std::string unique_text(const std::string& what) {
  static std::atomic<int> n{0};
  return what + " #" + std::to_string(++n);
}

inline bool contains_id(const std::vector<engine::Event>& events, const std::string& id) {
  return std::any_of(events.begin(), events.end(), [&](const engine::Event& e) { return e.id_hex() == id; });
}

// A string field of a JSON object text ("" if absent or not a string).
inline std::string json_str(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  std::string_view v;
  if (parser.parse(json)[key].get_string().get(v)) return {};
  return std::string(v);
}

// {"kinds":[<kinds>],"#h":["<channel>"]}
inline std::string h_filter(const std::string& channel, const std::string& kinds = "9") {
  return R"({"kinds":[)" + kinds + R"(],"#h":[")" + channel + R"("]})";
}

// {"kinds":[<kinds>],"#p":["<pubkey>"]}
inline std::string p_filter(const std::string& pubkey, const std::string& kinds) {
  return R"({"kinds":[)" + kinds + R"(],"#p":[")" + pubkey + R"("]})";
}

inline std::string ids_filter(const std::string& id) { return R"({"ids":[")" + id + R"("]})"; }

// An OK false with exactly this reason.
inline void expect_refused(const OkReply& r, const std::string& reason) {
  EXPECT_TRUE(r.received) << "no OK for: " << reason;
  EXPECT_FALSE(r.accepted) << reason;
  EXPECT_EQ(r.reason, reason);
}

// One user: a fresh keypair and an authenticated connection.
struct Peer {
  engine::Keypair key;
  std::string hex;
  std::unique_ptr<NostrClient> c;

  NostrClient& operator*() { return *c; }
  NostrClient* operator->() { return c.get(); }
};

inline Peer make_peer(const RelayProcess& relay) {
  Peer p;
  p.key = engine::generate_keypair();
  p.hex = hex(p.key);
  std::string error;
  p.c = NostrClient::connect_authed(relay, p.key, &error);
  EXPECT_NE(p.c, nullptr) << error;
  return p;
}

// A REQ that must end in EOSE.
inline std::vector<engine::Event> read(Peer& p, const std::string& sub, const std::string& filters) {
  ReqResult r = p->req(sub, filters);
  EXPECT_TRUE(r.eose) << sub << " " << filters << ": " << why(r);
  return r.events;
}

// Opens a live subscription (its history is ignored).
inline void subscribe(Peer& p, const std::string& sub, const std::string& filters) {
  ReqResult r = p->req(sub, filters);
  ASSERT_TRUE(r.eose) << sub << " " << filters << ": " << why(r);
}

// The live EVENT with this id on this subscription, waited for up to timeout_ms.
inline bool receives(Peer& p, const std::string& sub, const std::string& id, int timeout_ms = kReplyTimeoutMs) {
  return p->wait_for([&](const RelayMessage& m) { return m.type == "EVENT" && m.id == sub && m.event.id_hex() == id; },
                     timeout_ms)
      .has_value();
}

// The first EVENT frame that arrives on this subscription within the quiet
// window, or "" (compared with "" so that a failure shows what leaked).
// Events already sent in the replay (`seen`) do not count: an event committed
// just before the REQ may also come live, and clients dedupe by id.
inline std::string event_on(Peer& p, const std::string& sub, const std::vector<engine::Event>& seen = {}) {
  auto m = p->wait_for(
      [&](const RelayMessage& r) { return r.type == "EVENT" && r.id == sub && !contains_id(seen, r.event.id_hex()); },
      kQuietMs);
  return m ? m->raw : "";
}

// The newest event of a kind in a list (REQ results come newest first).
inline std::optional<engine::Event> first_of_kind(const std::vector<engine::Event>& events, uint16_t kind) {
  for (const engine::Event& e : events) {
    if (e.kind == kind) return e;
  }
  return std::nullopt;
}

// The 40099 system messages of a list whose content has "type": type.
inline std::vector<engine::Event> system_messages(const std::vector<engine::Event>& events, const std::string& type) {
  std::vector<engine::Event> out;
  for (const engine::Event& e : events) {
    if (e.kind == 40099 && json_str(e.content, "type") == type) out.push_back(e);
  }
  return out;
}

class ChannelTest : public ::testing::Test {
 protected:
  // Its tests send at test speed, past a human's frame and message limits
  // (docs/reference/protocol.md §14, tested in rate_limit_test.cpp).
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
  static const RelayProcess& relay() { return *relay_; }

  // A 9007 with a client-chosen id; extra tags go after h, name, visibility.
  static engine::Event create_event(Peer& owner, const std::string& id, const std::string& visibility,
                                    std::vector<engine::Tag> extra = {}) {
    std::vector<engine::Tag> tags = {{"h", id}, {"name", "chan " + id.substr(0, 8)}, {"visibility", visibility}};
    for (auto& t : extra) tags.push_back(std::move(t));
    return make_event(owner.key, 9007, "", std::move(tags));
  }

  // Creates a channel and returns its id (the 9007 must be accepted).
  static std::string create(Peer& owner, const std::string& visibility, std::vector<engine::Tag> extra = {}) {
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
    std::vector<engine::Tag> tags = {{"h", channel}, {"p", target_hex}};
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

  static OkReply edit_meta(Peer& actor, const std::string& channel, std::vector<engine::Tag> tags) {
    tags.insert(tags.begin(), {"h", channel});
    return actor->publish(make_event(actor.key, 9002, unique_text("edit"), std::move(tags)));
  }

  // A kind-9 message (not yet published).
  static engine::Event message(Peer& author, const std::string& channel, std::vector<engine::Tag> extra = {}) {
    std::vector<engine::Tag> tags = {{"h", channel}};
    for (auto& t : extra) tags.push_back(std::move(t));
    return make_event(author.key, 9, unique_text("hello"), std::move(tags));
  }

  // Posts a kind-9 message that must be accepted.
  static engine::Event post(Peer& author, const std::string& channel, std::vector<engine::Tag> extra = {}) {
    engine::Event e = message(author, channel, std::move(extra));
    OkReply ok = author->publish(e);
    EXPECT_TRUE(ok.accepted) << "kind 9: " << ok.reason;
    return e;
  }
  // GET path over REST, NIP-98 signed by key.
  static HttpReply rest_get(const engine::Keypair& key, const std::string& path) {
    const std::string url = "http://127.0.0.1:" + std::to_string(relay_->port()) + path;
    return http_call(relay_->port(), "GET", path, {{"Authorization", nip98_header(key, url, "GET", "")}});
  }

 private:
  static inline std::unique_ptr<RelayProcess> relay_;
  static inline std::string relay_pubkey_;
};

}  // namespace buzz::test
