// Huddles against the real binary (docs/reference/huddle.md): the handshake and its
// refusals with their exact errors, rooms of 2 and 25 peers, Opus audio that
// arrives and decodes to the tone that was sent, the lifecycle events, the
// archive when the last peer leaves, and sockets that misbehave.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>

#include "tests/e2e/channel_fixture.h"
#include "tests/e2e/huddle_client.h"
#include "tools/audio/opus_audio.h"

namespace buzz::test {
namespace {

// A parent channel with one huddle announced in it, as the desktop starts one (§2).
struct Huddle {
  std::string parent;
  std::string channel;  // the private, TTL'd huddle channel the socket names
};

class HuddleTest : public ChannelTest {
 protected:
  static Huddle start_huddle(Peer& owner, const std::string& parent_visibility = "private") {
    Huddle h;
    h.parent = create(owner, parent_visibility);
    h.channel = create(owner, "private", {{"channel_type", "stream"}, {"ttl", "3600"}});
    announce(owner, h.parent, h.channel);
    return h;
  }
  // A huddle in a new private channel of `owner`'s, with `members` added to that channel.
  static Huddle start_huddle_among(Peer& owner, std::initializer_list<Peer*> members) {
    Huddle h = start_huddle(owner);
    for (Peer* p : members) add(owner, h.parent, *p);
    return h;
  }
  static void announce(Peer& who, const std::string& parent, const std::string& channel) {
    OkReply ok = who->publish(
        make_event(who.key, 48100, R"({"ephemeral_channel_id":")" + channel + R"("})", {{"h", parent}}));
    ASSERT_TRUE(ok.accepted) << ok.reason;
  }
  static std::unique_ptr<HuddleClient> open(const std::string& channel) {
    std::string error;
    auto c = HuddleClient::connect(relay(), channel, &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }
  // The relay's answer to `who` authenticating on a new socket.
  static std::string answer(Peer& who, const std::string& channel, HuddleAuth auth) {
    auto c = open(channel);
    if (!c) return "";
    c->send_auth(who.key, auth);
    return c->admission(who.hex).value_or("(nothing)");
  }
  // A peer admitted to the huddle, its own `joined` read.
  static std::unique_ptr<HuddleClient> join(Peer& who, const Huddle& h, int version = 2) {
    auto c = open(h.channel);
    if (!c) return nullptr;
    HuddleAuth auth;
    auth.parent = h.parent;
    auth.version = version;
    c->send_auth(who.key, auth);
    std::string got = c->admission(who.hex).value_or("(nothing)");
    EXPECT_EQ(json_field(got, "type"), "joined") << got;
    return c;
  }
  static HuddleAuth in_parent(const Huddle& h) {
    HuddleAuth a;
    a.parent = h.parent;
    return a;
  }
  static uint8_t index_of(const std::string& joined) { return uint8_t(std::stoi(json_field(joined, "peer_index"))); }
};

TEST_F(HuddleTest, TwoPeersHearEachOtherAndNeverThemselves) {
  Peer alice = user(), bob = user();
  Huddle h = start_huddle_among(alice, {&bob});
  auto a = open(h.channel);
  a->send_auth(alice.key, in_parent(h));
  std::string a_joined = a->admission(alice.hex).value_or("");
  ASSERT_EQ(json_field(a_joined, "type"), "joined") << a_joined;
  EXPECT_EQ(json_field(a_joined, "peer_index"), "0");
  EXPECT_EQ(json_field(a_joined, "peers"), R"([{"peer_index":0,"pubkey":")" + alice.hex + R"("}])");
  auto b = join(bob, h);  // bob is not a member of the huddle channel: added as a member of the parent
  ASSERT_NE(b, nullptr);
  std::string b_seen = a->wait_type("joined").value_or("");
  EXPECT_EQ(json_field(b_seen, "pubkey"), bob.hex);
  EXPECT_EQ(json_field(b_seen, "peer_index"), "1");

  audio::SineEncoder tone(440);
  const std::string frame = v2_frame(7, 960 * 7, -20, 0, tone.next_packet());
  ASSERT_TRUE(a->send_frame(frame));
  EXPECT_EQ(b->wait_binary().value_or(""), std::string(1, '\0') + frame);  // [index 0][the frame, byte for byte]
  const std::string back = v2_frame(1, 960, -30, 1, tone.next_packet());
  ASSERT_TRUE(b->send_frame(back));
  EXPECT_EQ(a->wait_binary().value_or(""), std::string(1, '\1') + back);
  EXPECT_FALSE(a->wait_binary(kQuietMs)) << "a frame was echoed to its sender";
  EXPECT_FALSE(b->wait_binary(kQuietMs)) << "a frame was echoed to its sender";
}

TEST_F(HuddleTest, ClientsCannotForgeJoinedOrLeftEvents) {
  Peer alice = user();
  Huddle h = start_huddle(alice);
  for (uint16_t kind : {48101, 48102}) {
    expect_refused(alice->publish(make_event(alice.key, kind, R"({"ephemeral_channel_id":")" + h.channel + R"("})",
                                             {{"h", h.parent}, {"p", alice.hex}})),
                   "restricted: unknown event kind");  // as every relay-signed kind (docs/reference/kinds.md)
  }
}

TEST_F(HuddleTest, ANonMemberNeverGetsIn) {
  Peer alice = user(), mallory = user(), carol = user();
  Huddle h = start_huddle(alice);
  const std::string not_member = R"({"message":"not a member","type":"error"})";
  // Not in the parent channel either.
  EXPECT_EQ(answer(mallory, h.channel, in_parent(h)), not_member);
  EXPECT_EQ(answer(mallory, h.channel, {}), not_member);
  // A member of a parent that never announced this huddle is not let in through it.
  Huddle other = start_huddle(carol);
  add(carol, other.parent, mallory);
  HuddleAuth wrong_parent;
  wrong_parent.parent = other.parent;
  EXPECT_EQ(answer(mallory, h.channel, wrong_parent), not_member);
  // Nor a channel that is not there.
  EXPECT_EQ(answer(alice, new_uuid(), {}), not_member);
  // And a channel id that is not a UUID is refused at the upgrade.
  std::string error;
  EXPECT_EQ(client::WsClient::connect("127.0.0.1", relay().port(), &error, "/huddle/not-a-uuid/audio"), nullptr);
  EXPECT_NE(error.find("400"), std::string::npos) << error;
}

// Issue 32 §2: a member removed from a private channel with a TTL names it
// in a 48100 of her own channel, to be let back in with that channel as the
// parent. Only those who created or manage a huddle channel may announce it.
TEST_F(HuddleTest, NobodyGetsBackInByAnnouncingAChannelOfHerOwn) {
  Peer alice = user(), mallory = user();
  const std::string secret = create(alice, "private", {{"ttl", "3600"}});
  add(alice, secret, mallory);
  ASSERT_TRUE(remove(alice, secret, mallory.hex).accepted);
  const std::string hers = create(mallory, "open");
  expect_refused(mallory->publish(make_event(mallory.key, 48100, R"({"ephemeral_channel_id":")" + secret + R"("})",
                                             {{"h", hers}})),
                 "restricted: only the huddle channel's creator or its owners and admins may announce it");
  expect_refused(mallory->publish(make_event(mallory.key, 48100, "{}", {{"h", hers}})),
                 "invalid: a huddle announcement must name its channel (ephemeral_channel_id)");
  const engine::Event said = post(alice, secret);
  HuddleAuth through_hers;
  through_hers.parent = hers;
  EXPECT_EQ(answer(mallory, secret, through_hers), R"({"message":"not a member","type":"error"})");
  ReqResult r = mallory->req("secret", h_filter(secret));
  EXPECT_FALSE(contains_id(r.events, said.id_hex())) << "mallory reads the private channel again";
}

// A huddle participant removed from the huddle channel (9001) is dropped from
// the live room at once, and the parent does not add her back.
TEST_F(HuddleTest, APeerRemovedFromTheChannelLeavesTheCallAndStaysOut) {
  Peer alice = user(), bob = user();
  Huddle h = start_huddle_among(alice, {&bob});
  auto a = join(alice, h), b = join(bob, h);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(remove(alice, h.channel, bob.hex).accepted);
  EXPECT_EQ(b->wait_type("error").value_or("(nothing)"), R"({"message":"not a member","type":"error"})");
  EXPECT_EQ(json_field(a->wait_type("left").value_or(""), "pubkey"), bob.hex);
  EXPECT_FALSE(b->next(2000));
  EXPECT_TRUE(b->ws().closed());
  // Still a member of the parent that announced the huddle, but removed from it by its owner.
  EXPECT_EQ(answer(bob, h.channel, in_parent(h)), R"({"message":"not a member","type":"error"})");
  // The room goes on for the others.
  Peer carol = user();
  add(alice, h.parent, carol);
  EXPECT_NE(join(carol, h), nullptr);
}

TEST_F(HuddleTest, StaleOrForeignAuthFails) {
  Peer alice = user();
  Huddle h = start_huddle(alice);
  const std::string failed = R"({"message":"auth failed","type":"error"})";
  HuddleAuth stale = in_parent(h);
  stale.created_at = unix_now() - 120;
  EXPECT_EQ(answer(alice, h.channel, stale), failed);
  auto other = open(h.channel);  // another socket's challenge
  HuddleAuth foreign = in_parent(h);
  foreign.challenge = other->challenge();
  EXPECT_EQ(answer(alice, h.channel, foreign), failed);
  HuddleAuth elsewhere = in_parent(h);
  elsewhere.relay_url = "wss://another.relay.example";
  EXPECT_EQ(answer(alice, h.channel, elsewhere), failed);
  // The socket is closed after the error.
  auto c = open(h.channel);
  c->send_auth(alice.key, stale);
  EXPECT_EQ(c->admission(alice.hex).value_or(""), failed);
  EXPECT_FALSE(c->next(2000));
  EXPECT_TRUE(c->ws().closed());
}

TEST_F(HuddleTest, WhatIsNotAnAuthMessageIsIgnoredUntilOneArrives) {
  Peer alice = user();
  Huddle h = start_huddle(alice);
  auto c = open(h.channel);
  c->send_text("not json");
  c->send_text(R"({"type":"leave"})");
  c->send_text(R"({"type":"auth",)" + std::string(9000, ' ') + "}");  // over 8 192 bytes
  c->send_frame("\x01\x02");
  EXPECT_FALSE(c->next(kQuietMs));
  c->send_auth(alice.key, in_parent(h));
  EXPECT_EQ(json_field(c->admission(alice.hex).value_or(""), "type"), "joined");
}

TEST_F(HuddleTest, VersionsArePinnedByTheFirstPeer) {
  Peer alice = user(), bob = user();
  Huddle h = start_huddle_among(alice, {&bob});
  HuddleAuth v3 = in_parent(h);
  v3.version = 3;
  EXPECT_EQ(answer(bob, h.channel, v3),
            R"({"code":"unsupported_version","current_version":2,"message":"huddle audio protocol v3 not supported; relay max is v2","type":"error"})");
  auto a = join(alice, h, 2);
  HuddleAuth v1 = in_parent(h);
  v1.version = 1;
  EXPECT_EQ(answer(bob, h.channel, v1),
            R"({"code":"upgrade_required","message":"this huddle is using audio protocol v2; your client requested v1","pinned_version":2,"requested_version":1,"type":"error"})");
  // protocol_version defaults to 1 when absent.
  HuddleAuth absent = in_parent(h);
  absent.version.reset();
  EXPECT_EQ(json_field(answer(bob, h.channel, absent), "code"), "upgrade_required");
}

TEST_F(HuddleTest, AV1RoomForwardsRawOpus) {
  Peer alice = user(), bob = user();
  Huddle h = start_huddle_among(alice, {&bob});
  auto a = join(alice, h, 1);
  auto b = join(bob, h, 1);
  audio::SineEncoder tone(300);
  const std::string packet = tone.next_packet();
  a->send_frame(packet);
  EXPECT_EQ(b->wait_binary().value_or(""), std::string(1, '\0') + packet);
}

// 25 peers, each its own socket (spread over the relay's loops); the 26th is refused.
TEST_F(HuddleTest, TwentyFivePeersAndATwentySixth) {
  Peer owner = user();
  Huddle h = start_huddle(owner);
  std::vector<Peer> people;
  std::vector<std::unique_ptr<HuddleClient>> socks;
  people.reserve(26);
  for (int i = 0; i < 26; ++i) {
    people.push_back(user());
    add(owner, h.parent, people.back());
  }
  for (int i = 0; i < 25; ++i) {
    socks.push_back(join(people[size_t(i)], h));
    ASSERT_NE(socks.back(), nullptr);
  }
  EXPECT_EQ(answer(people[25], h.channel, in_parent(h)),
            R"({"code":"room_full","message":"peer index space exhausted","type":"error"})");
  // Indices 0…24, each once; a frame from the last reaches the other 24.
  audio::SineEncoder tone(500);
  const std::string frame = v2_frame(1, 960, -10, 0, tone.next_packet());
  ASSERT_TRUE(socks[24]->send_frame(frame));
  for (int i = 0; i < 24; ++i) {
    EXPECT_EQ(socks[size_t(i)]->wait_binary().value_or(""), std::string(1, char(24)) + frame) << "peer " << i;
  }
}

TEST_F(HuddleTest, ASineWaveArrivesAndDecodesToTheSameFrequency) {
  Peer alice = user(), bob = user(), carol = user();
  Huddle h = start_huddle_among(alice, {&bob, &carol});
  auto a = join(alice, h), b = join(bob, h), c = join(carol, h);
  audio::SineEncoder tone(440);
  constexpr int kFrames = 50;  // one second, sent in real time as a client does
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_TRUE(a->send_frame(v2_frame(uint16_t(i), uint32_t(960 * i), -12, 0, tone.next_packet())));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (HuddleClient* listener : {b.get(), c.get()}) {
    audio::Decoder dec;
    for (int i = 0; i < kFrames; ++i) {
      auto got = listener->wait_binary();
      ASSERT_TRUE(got) << "frame " << i;
      ASSERT_GT(got->size(), 9u);
      EXPECT_EQ(uint8_t((*got)[0]), 0);
      EXPECT_EQ(uint16_t(uint8_t((*got)[1]) << 8 | uint8_t((*got)[2])), i) << "frames arrive in order";
      ASSERT_TRUE(dec.decode(got->substr(9)));
    }
    EXPECT_NEAR(audio::dominant_hz(dec.pcm()), 440.0, 5.0);
  }
}

TEST_F(HuddleTest, FramesThatAreNotOpusOrTooBigAreDroppedAndTheSocketStays) {
  Peer alice = user(), bob = user();
  Huddle h = start_huddle_among(alice, {&bob});
  auto a = join(alice, h), b = join(bob, h);
  audio::SineEncoder tone(440);
  a->send_frame(v2_frame(1, 0, 0, 0, ""));                        // only a header (8 bytes)
  a->send_frame(v2_frame(2, 0, 0, 0, std::string(4089, 'x')));    // 4 097 bytes
  a->send_frame(v2_frame(3, 0, 0, 0, std::string("\x03\xff", 2))); // a code-3 packet with 63 frames and no bytes
  const std::string good = v2_frame(4, 0, 5, 0, tone.next_packet());  // level +5 is read as −127, not dropped
  a->send_frame(good);
  EXPECT_EQ(b->wait_binary().value_or(""), std::string(1, '\0') + good);
  EXPECT_FALSE(b->wait_binary(kQuietMs));
  a->send_text(std::string(9000, 'x'));  // a text frame over 8 192 bytes is dropped too
  a->send_frame(good);
  EXPECT_EQ(b->wait_binary().value_or(""), std::string(1, '\0') + good);
}

std::vector<engine::Event> of_kind(const std::vector<engine::Event>& events, uint16_t kind) {
  std::vector<engine::Event> out;
  for (const auto& e : events) {
    if (e.kind == kind) out.push_back(e);
  }
  return out;
}

TEST_F(HuddleTest, TheLastPeerLeavingEndsTheRoomAndArchivesTheChannel) {
  Peer alice = user(), bob = user();
  Huddle h = start_huddle_among(alice, {&bob});
  auto a = join(alice, h), b = join(bob, h);
  a->send_text(R"({"type":"leave"})");
  std::string left = b->wait_type("left").value_or("");
  EXPECT_EQ(left, R"({"peer_index":0,"pubkey":")" + alice.hex + R"(","type":"left"})");
  b->ws().close();
  // 48101 ×2, 48102 ×2 and one 48103 in the parent, signed by the relay.
  std::vector<engine::Event> got;
  for (int i = 0; i < 50; ++i) {
    got = read(alice, "lifecycle" + std::to_string(i), h_filter(h.parent, "48101,48102,48103"));
    if (of_kind(got, 48103).size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(of_kind(got, 48101).size(), 2u);
  EXPECT_EQ(of_kind(got, 48102).size(), 2u);
  ASSERT_EQ(of_kind(got, 48103).size(), 1u);
  const engine::Event ended = of_kind(got, 48103)[0];
  EXPECT_EQ(ended.pubkey_hex(), relay_pubkey());
  EXPECT_EQ(ended.content, R"({"ephemeral_channel_id":")" + h.channel + R"("})");
  EXPECT_TRUE(has_tag(ended, {"p", bob.hex}));
  for (const auto& e : got) EXPECT_TRUE(has_tag(e, {"h", h.parent}));
  // The huddle channel is archived, said so, and cannot be entered again.
  auto archived = read(alice, "archived", h_filter(h.channel, "40099"));
  EXPECT_EQ(system_messages(archived, "channel_auto_archived").size(), 1u);
  EXPECT_EQ(answer(alice, h.channel, in_parent(h)), R"({"message":"not a member","type":"error"})");
  // bob was added to the huddle channel when he joined (44100), as he was to the parent.
  auto added = read(bob, "added", p_filter(bob.hex, "44100"));
  EXPECT_TRUE(std::any_of(added.begin(), added.end(), [&](const engine::Event& e) { return has_tag(e, {"h", h.channel}); }));
}

TEST_F(HuddleTest, APeerKilledMidFrameLeavesAndTheOthersGoOn) {
  Peer alice = user(), bob = user(), carol = user();
  Huddle h = start_huddle_among(alice, {&bob, &carol});
  auto a = join(alice, h), b = join(bob, h), c = join(carol, h);
  // Half of a 200-byte binary frame, then the socket is reset.
  std::string header = {char(0x82), char(0x80 | 126), char(0), char(200), 1, 2, 3, 4};
  ASSERT_TRUE(c->ws().send_raw(header + std::string(100, 'z')));
  linger hard{1, 0};
  ::setsockopt(c->ws().fd(), SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  c.reset();
  std::string left = a->wait_type("left").value_or("");
  EXPECT_EQ(json_field(left, "pubkey"), carol.hex);
  EXPECT_EQ(json_field(b->wait_type("left").value_or(""), "pubkey"), carol.hex);
  audio::SineEncoder tone(440);
  const std::string frame = v2_frame(1, 960, -10, 0, tone.next_packet());
  b->send_frame(frame);
  EXPECT_EQ(a->wait_binary().value_or(""), std::string(1, '\1') + frame);
  // Carol's index is free again, and the next to join takes it (§4.3: last freed, first reused).
  Peer dave = user();
  add(alice, h.parent, dave);
  auto d = open(h.channel);
  d->send_auth(dave.key, in_parent(h));
  EXPECT_EQ(json_field(d->admission(dave.hex).value_or(""), "peer_index"), "2");
}

// A peer that reads nothing loses its own frames; the others get every one, at once.
TEST_F(HuddleTest, ASlowPeerLosesOnlyItsOwnFrames) {
  Peer alice = user(), bob = user(), sloth = user();
  Huddle h = start_huddle_among(alice, {&bob, &sloth});
  auto a = join(alice, h), b = join(bob, h), s = join(sloth, h);
  // 5 MB of frames (the largest single-frame Opus packets): more than the sloth's socket buffers hold.
  const std::string frame = v2_frame(0, 0, -10, 0, std::string(1, char(0xf8)) + std::string(1275, 'a'));
  constexpr int kFrames = 4000;
  int received = 0;
  std::thread reader([&] {
    while (received < kFrames && b->wait_binary(5000)) ++received;
  });
  // Paced at 2 frames a millisecond: bob keeps up, the sloth reads nothing.
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_TRUE(a->send_frame(frame));
    if (i % 2 == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  reader.join();
  EXPECT_EQ(received, kFrames);
  EXPECT_FALSE(s->ws().closed()) << "a slow peer is not disconnected for being slow";
  // What the sloth's socket buffers held (a few MB) reaches it late; the rest was dropped for it alone.
  int late = 0;
  while (auto m = s->next(1000)) late += m->binary;
  EXPECT_LT(late, kFrames);
  // The sloth is still in the room: its own frames still reach the others.
  s->send_frame(frame);
  EXPECT_TRUE(b->wait_binary());
}

TEST_F(HuddleTest, NoAuthWithinFiveSecondsClosesTheSocket) {
  Peer alice = user();
  Huddle h = start_huddle(alice);
  auto c = open(h.channel);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(c->next(8000));
  EXPECT_TRUE(c->ws().closed());
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(4500));
  EXPECT_LE(waited, std::chrono::milliseconds(7500));
}

// A closed relay (no --open): a key that is not a relay member is refused
// before any channel is looked at (§3.2 step 1).
TEST(HuddleClosedRelayTest, ANonMemberOfTheRelayIsRefusedFirst) {
  engine::Keypair owner = engine::generate_keypair(), stranger = engine::generate_keypair();
  auto relay = start_relay(RelayOptions{{"--owner", hex(owner)}, {}, ""});
  ASSERT_NE(relay, nullptr);
  std::string error;
  auto c = HuddleClient::connect(*relay, new_uuid(), &error);
  ASSERT_NE(c, nullptr) << error;
  c->send_auth(stranger, {});
  EXPECT_EQ(c->admission(hex(stranger)).value_or(""), R"({"message":"restricted: not a relay member","type":"error"})");
  // The owner passes that gate and meets the next: there is no such channel.
  auto d = HuddleClient::connect(*relay, new_uuid(), &error);
  ASSERT_NE(d, nullptr) << error;
  d->send_auth(owner, {});
  EXPECT_EQ(d->admission(hex(owner)).value_or(""), R"({"message":"not a member","type":"error"})");
}

// A participant removed from the relay (9031) while in the call is dropped from it.
TEST(HuddleClosedRelayTest, APeerRemovedFromTheRelayLeavesTheCall) {
  engine::Keypair owner = engine::generate_keypair(), member = engine::generate_keypair();
  auto relay = start_relay(RelayOptions{{"--owner", hex(owner)}, {}, ""});
  ASSERT_NE(relay, nullptr);
  std::string error;
  auto boss = NostrClient::connect_authed(*relay, owner, &error);
  ASSERT_NE(boss, nullptr) << error;
  ASSERT_TRUE(boss->publish(make_event(owner, 9030, "", {{"p", hex(member)}})).accepted);
  const std::string channel = new_uuid();
  ASSERT_TRUE(boss->publish(make_event(owner, 9007, "", {{"h", channel}, {"name", "call"}, {"visibility", "open"}})).accepted);
  auto join = [&](const engine::Keypair& who) {
    auto c = HuddleClient::connect(*relay, channel, &error);
    EXPECT_NE(c, nullptr) << error;
    if (!c) return c;
    c->send_auth(who, {});
    EXPECT_EQ(json_field(c->admission(hex(who)).value_or(""), "type"), "joined");
    return c;
  };
  auto o = join(owner), m = join(member);
  ASSERT_TRUE(o && m);
  ASSERT_TRUE(boss->publish(make_event(owner, 9031, "", {{"p", hex(member)}})).accepted);
  EXPECT_EQ(m->wait_type("error").value_or("(nothing)"), R"({"message":"restricted: not a relay member","type":"error"})");
  EXPECT_EQ(json_field(o->wait_type("left").value_or(""), "pubkey"), hex(member));
  EXPECT_FALSE(m->next(2000));
  EXPECT_TRUE(m->ws().closed());
}

}  // namespace
}  // namespace buzz::test
