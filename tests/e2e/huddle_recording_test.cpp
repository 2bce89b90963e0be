// Huddle recordings and published tracks against the real binary
// (docs/reference/huddle.md §11): who may record, every participant told before their
// frames are kept (and a late joiner on joining), the Ogg Opus tracks read
// back page by page with libogg and decoded with libopus to the tone each
// participant sent and to the recording's length, the 48111 listing them
// readable by the channel's members only, a leaver's and a late joiner's
// tracks aligned, a relay killed mid-recording, and client copies of the
// relay's recording kinds refused.
#include <gtest/gtest.h>
#include <ogg/ogg.h>

#include <cmath>
#include <cstring>
#include <map>
#include <filesystem>
#include <thread>

#include "tests/e2e/channel_fixture.h"
#include "tests/e2e/huddle_client.h"
#include "tests/e2e/media_fixture.h"
#include "tests/e2e/scratch_dir.h"
#include "tools/audio/opus_audio.h"
#include "tools/client/http_client.h"

namespace buzz::test {
namespace {

using client::HttpHeaders;

constexpr const char* kStart = R"({"action":"start","type":"recording"})";
constexpr const char* kStop = R"({"action":"stop","type":"recording"})";
constexpr int kRecordingTimeoutMs = 15000;

// What an Ogg Opus file holds, read with libogg page by page.
struct OggOpus {
  std::string error;  // empty when the file is well-formed
  int pages = 0;
  int64_t granule = 0;  // the last page's
  size_t packets = 0;   // audio packets
  std::vector<int16_t> pcm;  // every audio packet decoded
  std::vector<std::string> comments;
  double seconds() const { return double(granule) / 48000.0; }
};

// Well-formed: one stream; OpusHead alone on a BOS page, OpusTags next; page
// numbers without a gap; granule positions that never go back; an EOS page
// last and nothing after it; every audio packet decodes.
OggOpus read_ogg_opus(const std::string& bytes) {
  OggOpus out;
  ogg_sync_state oy;
  ogg_stream_state os;
  ogg_sync_init(&oy);
  char* buf = ogg_sync_buffer(&oy, long(bytes.size()));
  std::memcpy(buf, bytes.data(), bytes.size());
  ogg_sync_wrote(&oy, long(bytes.size()));
  audio::Decoder dec;
  bool eos = false, stream = false;
  long packet_no = 0;
  ogg_page og;
  long got;
  while ((got = ogg_sync_pageseek(&oy, &og)) != 0) {
    if (got < 0) {
      out.error = "bytes that are no Ogg page";
      break;
    }
    if (eos) {
      out.error = "a page after the end of the stream";
      break;
    }
    if (!stream) {
      ogg_stream_init(&os, ogg_page_serialno(&og));
      stream = true;
      if (!ogg_page_bos(&og)) out.error = "the first page is not BOS";
    }
    if (ogg_page_pageno(&og) != out.pages) out.error = "page " + std::to_string(out.pages) + " is numbered otherwise";
    ++out.pages;
    if (ogg_page_granulepos(&og) >= 0) {
      if (ogg_page_granulepos(&og) < out.granule) out.error = "a granule position went back";
      out.granule = ogg_page_granulepos(&og);
    }
    eos = ogg_page_eos(&og);
    ogg_stream_pagein(&os, &og);
    ogg_packet op;
    while (ogg_stream_packetout(&os, &op) == 1) {
      const std::string packet(reinterpret_cast<const char*>(op.packet), size_t(op.bytes));
      if (packet_no == 0 && !packet.starts_with("OpusHead")) out.error = "no OpusHead";
      if (packet_no == 1) {
        if (!packet.starts_with("OpusTags")) out.error = "no OpusTags";
        // The comments after the vendor string, each length-prefixed.
        auto le32 = [&](size_t at) {
          return uint32_t(uint8_t(packet[at])) | uint32_t(uint8_t(packet[at + 1])) << 8 |
                 uint32_t(uint8_t(packet[at + 2])) << 16 | uint32_t(uint8_t(packet[at + 3])) << 24;
        };
        size_t at = 8 + 4 + le32(8);
        const uint32_t n = le32(at);
        at += 4;
        for (uint32_t i = 0; i < n && at + 4 <= packet.size(); ++i) {
          const uint32_t len = le32(at);
          out.comments.push_back(packet.substr(at + 4, len));
          at += 4 + len;
        }
      }
      if (packet_no >= 2) {
        ++out.packets;
        if (!dec.decode(packet)) out.error = "packet " + std::to_string(packet_no) + " does not decode";
      }
      ++packet_no;
    }
  }
  if (stream) ogg_stream_clear(&os);
  ogg_sync_clear(&oy);
  if (out.error.empty() && !eos) out.error = "no EOS page at the end";
  if (out.error.empty() && packet_no < 2) out.error = "no head packets";
  out.pcm = dec.pcm();
  return out;
}

// One imeta tag's fields ("url", "m", "x", "size", "duration", "participant").
std::map<std::string, std::string> imeta_fields(const engine::Tag& t) {
  std::map<std::string, std::string> f;
  for (size_t i = 1; i < t.size(); ++i) {
    const size_t space = t[i].find(' ');
    if (space != std::string::npos) f[t[i].substr(0, space)] = t[i].substr(space + 1);
  }
  return f;
}

// The tracks an event lists, by participant.
std::map<std::string, std::map<std::string, std::string>> tracks_of(const engine::Event& e) {
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const engine::Tag& t : e.tags) {
    if (!t.empty() && t[0] == "imeta") {
      auto f = imeta_fields(t);
      out[f["participant"]] = f;
    }
  }
  return out;
}

// A url's path on this relay ("/media/…").
std::string media_path(const std::string& url) {
  const size_t at = url.find("/media/");
  return at == std::string::npos ? url : url.substr(at);
}

// The URL a NIP-98 header names for a path on this relay.
std::string signed_url(const RelayProcess& relay, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(relay.port()) + path;
}

// A track's bytes, fetched from its url's path on this relay by a request
// NIP-98 signed by `key`: a track is served to its channel's readers only.
HttpReply fetch(const RelayProcess& relay, const std::string& url, const engine::Keypair& key,
                const std::string& method = "GET", HttpHeaders extra = {}) {
  const std::string path = media_path(url);
  extra.emplace_back("Authorization", nip98_header(key, signed_url(relay, path), method, ""));
  return http_call(relay.port(), method, path, extra);
}

// The RMS of pcm[from, to) samples.
double rms(const std::vector<int16_t>& pcm, size_t from, size_t to) {
  double sum = 0;
  to = std::min(to, pcm.size());
  for (size_t i = from; i < to; ++i) sum += double(pcm[i]) * pcm[i];
  return to > from ? std::sqrt(sum / double(to - from)) : 0;
}

// The tone's frequency in pcm[from_s, to_s) seconds (the silence around a
// tone, decoded, is near zero but not zero, and would add crossings).
double hz_between(const std::vector<int16_t>& pcm, double from_s, double to_s) {
  const size_t from = size_t(from_s * 48000), to = std::min(pcm.size(), size_t(to_s * 48000));
  return to > from ? audio::dominant_hz(std::vector<int16_t>(pcm.begin() + long(from), pcm.begin() + long(to)), 0) : 0;
}

// The first event of `kind` that `p` sees on `sub` (opened with that kind), within the timeout.
std::optional<engine::Event> wait_event(Peer& p, const std::string& sub, uint16_t kind) {
  auto m = p->wait_for([&](const RelayMessage& r) { return r.type == "EVENT" && r.id == sub && r.event.kind == kind; },
                       kRecordingTimeoutMs);
  if (!m) return std::nullopt;
  return m->event;
}

// The next `track` message about `pubkey`'s track ("" if none within the timeout); others are skipped.
std::string track_news(HuddleClient& c, const std::string& pubkey, int timeout_ms = 5000) {
  for (;;) {
    std::optional<std::string> m = c.wait_type("track", timeout_ms);
    if (!m) return "";
    if (json_field(*m, "pubkey") == pubkey) return *m;
  }
}

std::string channel_filter(std::initializer_list<int> kinds, const std::string& channel) {
  std::string k;
  for (int x : kinds) k += (k.empty() ? "" : ",") + std::to_string(x);
  return R"({"kinds":[)" + k + R"(],"#h":[")" + channel + R"("]})";
}

// Sends `frames` 20 ms frames of each (client, tone) pair in real time, on
// the audio clock as clients do (frame i at start + 20 i ms, not 20 ms after
// the last send: a sender that falls behind leaves gaps, kept as silence).
void speak(std::initializer_list<std::pair<HuddleClient*, audio::SineEncoder*>> voices, int frames) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < frames; ++i) {
    std::this_thread::sleep_until(start + std::chrono::milliseconds(20 * i));
    for (auto [c, tone] : voices) ASSERT_TRUE(c->send_frame(v2_frame(uint16_t(i), uint32_t(960 * i), -12, 0, tone->next_packet())));
  }
  std::this_thread::sleep_until(start + std::chrono::milliseconds(20 * frames));
}

struct Call {
  std::string parent, channel;
};

// A huddle as the desktop starts one (§2): `owner` creates a private parent and
// the TTL'd huddle channel (so owns it), announces it, and adds `members` to the parent.
Call start_call_on(NostrClient& owner, const engine::Keypair& key, const std::vector<std::string>& members) {
  Call h{new_uuid(), new_uuid()};
  for (const auto& [id, extra] : {std::pair{h.parent, std::vector<engine::Tag>{}},
                                  std::pair{h.channel, std::vector<engine::Tag>{{"channel_type", "stream"}, {"ttl", "3600"}}}}) {
    std::vector<engine::Tag> tags = {{"h", id}, {"name", "call " + id.substr(0, 8)}, {"visibility", "private"}};
    tags.insert(tags.end(), extra.begin(), extra.end());
    OkReply ok = owner.publish(make_event(key, 9007, "", std::move(tags)));
    EXPECT_TRUE(ok.accepted) << ok.reason;
  }
  OkReply ok = owner.publish(make_event(key, 48100, R"({"ephemeral_channel_id":")" + h.channel + R"("})", {{"h", h.parent}}));
  EXPECT_TRUE(ok.accepted) << ok.reason;
  for (const std::string& m : members) {
    OkReply added = owner.publish(make_event(key, 9000, unique_text("add"), {{"h", h.parent}, {"p", m}}));
    EXPECT_TRUE(added.accepted) << added.reason;
  }
  return h;
}

// `who` admitted to the call (through the parent), its own `joined` read.
std::unique_ptr<HuddleClient> join_on(const RelayProcess& relay, const engine::Keypair& who, const Call& h) {
  std::string error;
  auto c = HuddleClient::connect(relay, h.channel, &error);
  EXPECT_NE(c, nullptr) << error;
  if (!c) return nullptr;
  HuddleAuth auth;
  auth.parent = h.parent;
  c->send_auth(who, auth);
  const std::string got = c->admission(hex(who)).value_or("(nothing)");
  EXPECT_EQ(json_field(got, "type"), "joined") << got;
  return c;
}

class HuddleRecordingTest : public ChannelTest {
 protected:
  static Call start_call(Peer& owner, std::initializer_list<Peer*> members) {
    std::vector<std::string> hexes;
    for (Peer* p : members) hexes.push_back(p->hex);
    return start_call_on(*owner, owner.key, hexes);
  }
  static std::unique_ptr<HuddleClient> join(Peer& who, const Call& h) { return join_on(relay(), who.key, h); }
};

TEST_F(HuddleRecordingTest, TwoParticipantsRecordedGiveTwoOggOpusTracksOfTheRightLength) {
  Peer alice = user(), bob = user(), eve = user();
  Call h = start_call(alice, {&bob});
  auto a = join(alice, h), b = join(bob, h);
  ASSERT_TRUE(a && b);
  subscribe(alice, "rec", channel_filter({48110, 48111}, h.channel));
  ASSERT_TRUE(a->send_text(kStart));
  // Both told, in the call and by a relay-signed 48110 in the huddle channel.
  for (HuddleClient* c : {a.get(), b.get()}) {
    const std::string told = c->wait_type("recording").value_or("(nothing)");
    EXPECT_EQ(json_field(told, "recording"), "true") << told;
    EXPECT_EQ(json_field(told, "started_by"), alice.hex) << told;
  }
  auto started = wait_event(alice, "rec", 48110);
  ASSERT_TRUE(started);
  EXPECT_EQ(started->pubkey_hex(), relay_pubkey());

  audio::SineEncoder la(440), lb(660);
  speak({{a.get(), &la}, {b.get(), &lb}}, 150);  // 3 s
  ASSERT_TRUE(a->send_text(kStop));
  EXPECT_EQ(json_field(b->wait_type("recording").value_or(""), "recording"), "false");
  auto rec = wait_event(alice, "rec", 48111);
  ASSERT_TRUE(rec) << "no 48111 listing the tracks";
  EXPECT_EQ(rec->pubkey_hex(), relay_pubkey());
  EXPECT_EQ(json_field(rec->content, "recording_id"), json_field(started->content, "recording_id"));
  EXPECT_EQ(json_field(rec->content, "interrupted"), "false");
  auto tracks = tracks_of(*rec);
  ASSERT_EQ(tracks.size(), 2u) << rec->raw;
  for (auto& [who, hz] : {std::pair{alice.hex, 440.0}, std::pair{bob.hex, 660.0}}) {
    auto& t = tracks[who];
    EXPECT_EQ(t["m"], "audio/ogg");
    const double duration = std::stod(t["duration"]);
    EXPECT_GE(duration, 2.9) << who;
    EXPECT_LE(duration, 3.6) << who;
    HttpReply got = fetch(relay(), t["url"], bob.key);
    ASSERT_EQ(got.status, 200) << t["url"];
    EXPECT_EQ(got.headers["content-type"], "audio/ogg");
    EXPECT_EQ(std::to_string(got.body.size()), t["size"]);
    OggOpus file = read_ogg_opus(got.body);
    EXPECT_EQ(file.error, "") << who;
    EXPECT_NEAR(file.seconds(), duration, 0.001);
    EXPECT_NEAR(double(file.pcm.size()) / 48000.0, duration, 0.05) << "decoded length";
    EXPECT_GE(file.packets, 150u) << "every frame kept, as received";
    EXPECT_NEAR(hz_between(file.pcm, 0.2, 2.8), hz, 5.0) << who;
    EXPECT_NE(std::find(file.comments.begin(), file.comments.end(), "BUZZ_PARTICIPANT=" + who), file.comments.end());
  }
  // The listing is the channel's, like every event of a private channel: one
  // who is not a member reads neither event.
  ReqResult outside = eve->req("outside", channel_filter({48110, 48111}, h.channel));
  EXPECT_TRUE(outside.events.empty());
  EXPECT_EQ(outside.closed.value_or(""), "restricted: not a channel member");
  EXPECT_FALSE(read(bob, "inside", channel_filter({48111}, h.channel)).empty());
}

// A track is the huddle channel's, like its events (docs/reference/media.md
// §6.5): served, GET or HEAD, whole or by range, only to a request that proves
// a key (NIP-98, a Blossom `get`, an API token) which may read the channel at
// that moment. Without a proof, or with one that does not hold: 401; a key
// that may not read it is answered as for a blob that does not exist.
TEST_F(HuddleRecordingTest, ATracksBytesAreServedOnlyToWhoMayReadTheChannelNow) {
  Peer alice = user(), bob = user(), eve = user();
  Call h = start_call(alice, {&bob});
  auto a = join(alice, h), b = join(bob, h);
  ASSERT_TRUE(a && b);
  subscribe(alice, "rec", channel_filter({48111}, h.channel));
  ASSERT_TRUE(a->send_text(kStart));
  ASSERT_TRUE(b->wait_type("recording"));
  audio::SineEncoder la(440);
  speak({{a.get(), &la}}, 25);
  ASSERT_TRUE(a->send_text(kStop));
  auto rec = wait_event(alice, "rec", 48111);
  ASSERT_TRUE(rec);
  auto tracks = tracks_of(*rec);
  ASSERT_EQ(tracks.size(), 1u) << rec->raw;
  const std::string url = tracks[alice.hex]["url"], sha = tracks[alice.hex]["x"], size = tracks[alice.hex]["size"];
  const std::string path = media_path(url);
  const uint16_t port = relay().port();
  auto call = [&](const std::string& method, const std::string& authorization, HttpHeaders extra = {}) {
    if (!authorization.empty()) extra.emplace_back("Authorization", authorization);
    return http_call(port, method, path, extra);
  };
  auto get_auth = [&](const engine::Keypair& key, const std::string& x, const std::string& verb = "get") {
    return blossom_auth(key, x, opts([&](AuthOptions& o) { o.verb = verb; }));
  };
  const std::string missing = R"({"error":"not found"})";
  ASSERT_EQ(http_call(port, "GET", "/media/" + std::string(64, 'a') + ".ogg").body, missing);

  // No proof: 401, whatever the method or range.
  for (const auto& [method, extra] : {std::pair<std::string, HttpHeaders>{"GET", {}},
                                      std::pair<std::string, HttpHeaders>{"HEAD", {}},
                                      std::pair<std::string, HttpHeaders>{"GET", {{"Range", "bytes=0-9"}}}}) {
    HttpReply r = call(method, "", extra);
    EXPECT_EQ(r.status, 401) << method;
    if (method == "GET") {
      EXPECT_EQ(r.body.substr(0, 64), kAuthFailed);
    }
  }
  // A proof that does not hold for this request: 401.
  std::string tampered = make_event(bob.key, 27235, "", {{"u", signed_url(relay(), path)}, {"method", "GET"}}).raw;
  const size_t sig = tampered.find(R"("sig":")") + 7;
  tampered[sig] = tampered[sig] == '0' ? '1' : '0';
  const std::map<std::string, std::string> broken = {
      {"signature", "Nostr " + engine::encode_base64(tampered)},
      {"another url", nip98_header(bob.key, signed_url(relay(), "/media/" + std::string(64, 'b') + ".ogg"), "GET", "")},
      {"another method", nip98_header(bob.key, signed_url(relay(), path), "POST", "")},
      {"too old", nip98_header(bob.key, signed_url(relay(), path), "GET", "", unix_now() - 120)},
      {"blossom, another blob", get_auth(bob.key, std::string(64, 'b'))},
      {"blossom, the upload verb", get_auth(bob.key, sha, "upload")},
      {"a token that does not exist", "Bearer buzz_" + std::string(40, 'x')},
  };
  for (const auto& [why, header] : broken) {
    HttpReply r = call("GET", header);
    EXPECT_EQ(r.status, 401) << why;
    EXPECT_EQ(r.body.substr(0, 64), kAuthFailed) << why;
  }

  // A proven key that may not read the channel: just as a missing blob.
  for (const std::string& header : {nip98_header(eve.key, signed_url(relay(), path), "GET", ""), get_auth(eve.key, sha)}) {
    HttpReply r = call("GET", header);
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.body.substr(0, 64), missing);
  }
  EXPECT_EQ(call("HEAD", nip98_header(eve.key, signed_url(relay(), path), "HEAD", "")).status, 404);

  // A member: NIP-98 (each header once), GET, HEAD and a range.
  const std::string once = nip98_header(bob.key, signed_url(relay(), path), "GET", "");
  HttpReply whole = call("GET", once);
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(std::to_string(whole.body.size()), size);
  EXPECT_EQ(read_ogg_opus(whole.body).error, "");
  EXPECT_EQ(whole.headers["cache-control"], "private, no-store") << "no shared cache keeps a channel's blob";
  EXPECT_EQ(call("GET", once).status, 401) << "a NIP-98 header is used once";
  HttpReply head = call("HEAD", nip98_header(bob.key, signed_url(relay(), path), "HEAD", ""));
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers["content-length"], size);
  HttpReply piece = call("GET", nip98_header(bob.key, signed_url(relay(), path), "GET", ""), {{"Range", "bytes=0-9"}});
  EXPECT_EQ(piece.status, 206);
  EXPECT_EQ(piece.body, whole.body.substr(0, 10));
  // A Blossom `get` naming the blob, until it expires (a player's ranges).
  const std::string blossom = get_auth(bob.key, sha);
  EXPECT_EQ(call("GET", blossom).body, whole.body);
  EXPECT_EQ(call("GET", blossom, {{"Range", "bytes=10-19"}}).body, whole.body.substr(10, 10));
  // An API token with files:read and the channel in its list; not one without either.
  auto mint = [&](const std::string& body) {
    HttpReply r = http_call(port, "POST", "/api/tokens",
                            {{"Authorization", nip98_header(bob.key, signed_url(relay(), "/api/tokens"), "POST", body)}}, body);
    EXPECT_EQ(r.status, 201) << r.body;
    return "Bearer " + json_field(r.body, "token");
  };
  const std::string reader = mint(R"({"name":"r","scopes":["files:read"],"channel_ids":[")" + h.channel + R"("]})");
  EXPECT_EQ(call("GET", reader).body, whole.body);
  EXPECT_EQ(call("GET", mint(R"({"name":"m","scopes":["messages:read"]})")).status, 404) << "no files:read";
  EXPECT_EQ(call("GET", mint(R"({"name":"o","scopes":["files:read"],"channel_ids":[")" + h.parent + R"("]})")).status,
            404)
      << "another channel's token";

  // Removed from the huddle channel, bob is refused at once, his still-valid
  // Blossom auth and token too.
  OkReply removed = remove(alice, h.channel, bob.hex);
  ASSERT_TRUE(removed.accepted) << removed.reason;
  EXPECT_EQ(call("GET", nip98_header(bob.key, signed_url(relay(), path), "GET", "")).status, 404);
  EXPECT_EQ(call("GET", blossom).status, 404);
  EXPECT_EQ(call("GET", reader).status, 404);
  EXPECT_EQ(call("GET", nip98_header(alice.key, signed_url(relay(), path), "GET", "")).status, 200) << "the owner still reads";
}

TEST_F(HuddleRecordingTest, AMemberWhoMayNotManageTheChannelCannotStartOrStopARecording) {
  Peer alice = user(), bob = user();
  Call h = start_call(alice, {&bob});  // bob is added to the huddle channel as a plain member
  auto a = join(alice, h), b = join(bob, h);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(b->send_text(kStart));
  const std::string refused = b->wait_type("error").value_or("(nothing)");
  EXPECT_EQ(refused, R"({"code":"forbidden","message":"forbidden: only the huddle channel's owners and admins may record","type":"error"})");
  EXPECT_FALSE(a->wait_type("recording", 500)) << "nobody records";
  EXPECT_TRUE(read(alice, "none", channel_filter({48110}, h.channel)).empty());
  // The socket stays; made an admin, bob may.
  OkReply promoted = put_user(alice, h.channel, bob.hex, "admin");
  ASSERT_TRUE(promoted.accepted) << promoted.reason;
  ASSERT_TRUE(a->send_text(kStart));
  ASSERT_EQ(json_field(a->wait_type("recording").value_or(""), "recording"), "true");
  // Demoted again, the right is asked again at the moment of the act.
  ASSERT_TRUE(put_user(alice, h.channel, bob.hex, "member").accepted);
  ASSERT_TRUE(b->send_text(kStop));
  EXPECT_EQ(json_field(b->wait_type("error").value_or(""), "code"), "forbidden");
  ASSERT_TRUE(a->send_text(kStop));
  EXPECT_EQ(json_field(a->wait_type("recording").value_or(""), "recording"), "false");
}

TEST_F(HuddleRecordingTest, ALateJoinerIsToldOnJoiningAndALeaversTrackStaysAlignedAndWhole) {
  Peer alice = user(), bob = user(), carol = user();
  Call h = start_call(alice, {&bob, &carol});
  auto a = join(alice, h), b = join(bob, h);
  ASSERT_TRUE(a && b);
  subscribe(alice, "rec", channel_filter({48111}, h.channel));
  ASSERT_TRUE(a->send_text(kStart));
  ASSERT_TRUE(b->wait_type("recording"));
  audio::SineEncoder lb(440), lc(660);
  speak({{b.get(), &lb}}, 50);  // bob, the first second
  ASSERT_TRUE(b->send_text(R"({"type":"leave"})"));
  auto c = join(carol, h);
  ASSERT_TRUE(c);
  const std::string told = c->wait_type("recording").value_or("(nothing)");
  EXPECT_EQ(json_field(told, "recording"), "true") << "a late joiner is told on joining";
  speak({{c.get(), &lc}}, 50);  // carol, the second
  ASSERT_TRUE(a->send_text(kStop));
  auto rec = wait_event(alice, "rec", 48111);
  ASSERT_TRUE(rec);
  auto tracks = tracks_of(*rec);
  ASSERT_EQ(tracks.size(), 2u) << "alice said nothing: no track of hers";
  OggOpus fb = read_ogg_opus(fetch(relay(), tracks[bob.hex]["url"], alice.key).body);
  OggOpus fc = read_ogg_opus(fetch(relay(), tracks[carol.hex]["url"], alice.key).body);
  EXPECT_EQ(fb.error, "");
  EXPECT_EQ(fc.error, "");
  // Both as long as the recording: bob's ends in silence, carol's begins with it.
  EXPECT_EQ(fb.granule, fc.granule);
  EXPECT_GE(fb.seconds(), 1.9);
  const size_t half = size_t(fb.seconds() * 48000 / 2);
  EXPECT_GT(rms(fb.pcm, 4800, half - 9600), 1000.0) << "bob's tone first";
  EXPECT_LT(rms(fb.pcm, half + 9600, fb.pcm.size()), 100.0) << "then silence";
  EXPECT_LT(rms(fc.pcm, 0, half - 9600), 100.0) << "carol's silence first";
  EXPECT_GT(rms(fc.pcm, half + 9600, fc.pcm.size() - 4800), 1000.0) << "then her tone";
  EXPECT_NEAR(hz_between(fc.pcm, fc.seconds() / 2 + 0.2, fc.seconds() - 0.3), 660.0, 5.0);
  EXPECT_NEAR(hz_between(fb.pcm, 0.2, fb.seconds() / 2 - 0.3), 440.0, 5.0);
}

TEST_F(HuddleRecordingTest, TheLastParticipantLeavingEndsTheRecording) {
  Peer alice = user();
  Call h = start_call(alice, {});
  auto a = join(alice, h);
  ASSERT_TRUE(a);
  subscribe(alice, "rec", channel_filter({48111}, h.channel));
  ASSERT_TRUE(a->send_text(kStart));
  ASSERT_TRUE(a->wait_type("recording"));
  audio::SineEncoder la(440);
  speak({{a.get(), &la}}, 25);
  a.reset();  // the socket closes: the room empties, the recording ends
  auto rec = wait_event(alice, "rec", 48111);
  ASSERT_TRUE(rec);
  auto tracks = tracks_of(*rec);
  ASSERT_EQ(tracks.size(), 1u);
  OggOpus f = read_ogg_opus(fetch(relay(), tracks[alice.hex]["url"], alice.key).body);
  EXPECT_EQ(f.error, "");
  EXPECT_GE(f.seconds(), 0.45);
}

TEST_F(HuddleRecordingTest, APublishedTrackIsHandedOutAsItsOwnersAudioOnly) {
  Peer alice = user(), bob = user();
  Call h = start_call(alice, {&bob});
  auto a = join(alice, h), b = join(bob, h);
  ASSERT_TRUE(a && b);
  subscribe(alice, "tracks", channel_filter({48112}, h.channel));
  ASSERT_TRUE(b->send_text(R"({"action":"publish","type":"track"})"));
  for (HuddleClient* c : {a.get(), b.get()}) {
    const std::string told = c->wait_type("track").value_or("(nothing)");
    EXPECT_EQ(told, R"({"pubkey":")" + bob.hex + R"(","published":true,"type":"track"})");
  }
  audio::SineEncoder la(440), lb(660);
  speak({{a.get(), &la}, {b.get(), &lb}}, 50);
  ASSERT_TRUE(b->send_text(R"({"action":"unpublish","type":"track"})"));
  EXPECT_EQ(json_field(a->wait_type("track").value_or(""), "published"), "false");
  auto piece = wait_event(alice, "tracks", 48112);
  ASSERT_TRUE(piece);
  auto tracks = tracks_of(*piece);
  ASSERT_EQ(tracks.size(), 1u) << piece->raw;
  ASSERT_TRUE(tracks.count(bob.hex));
  EXPECT_EQ(json_field(piece->content, "segment"), "0");
  OggOpus f = read_ogg_opus(fetch(relay(), tracks[bob.hex]["url"], alice.key).body);
  EXPECT_EQ(f.error, "");
  EXPECT_NEAR(f.seconds(), 1.0, 0.25);
  EXPECT_NEAR(hz_between(f.pcm, 0.2, 0.8), 660.0, 5.0) << "bob's voice, not alice's";
}

TEST_F(HuddleRecordingTest, ClientSignedCopiesOfTheRelaysRecordingEventsAreRefused) {
  Peer alice = user();
  Call h = start_call(alice, {});
  const std::string content = R"({"ephemeral_channel_id":")" + h.channel + R"(","recording_id":")" + new_uuid() + R"("})";
  for (int kind : {48110, 48111, 48112}) {
    OkReply ok = alice->publish(make_event(alice.key, uint16_t(kind), content,
                                           {{"h", h.channel}, {"imeta", "url http://x/media/a.ogg", "m audio/ogg"}}));
    EXPECT_FALSE(ok.accepted) << kind;
    EXPECT_EQ(ok.reason, "restricted: unknown event kind") << kind;
  }
}

// A relay killed (SIGKILL) mid-recording: at its next start the tracks it
// left are cut after their last whole page, padded to the longest, ended,
// and published as an interrupted recording.
TEST(HuddleRecordingRestartTest, ARelayKilledMidRecordingLeavesWellFormedTracks) {
  const ScratchDir scratch("rec");
  const std::string& dir = scratch.path();
  RelayOptions opts{{"--open", "--rate-limits", "false"}, {}, dir};
  engine::Keypair ka = engine::generate_keypair(), kb = engine::generate_keypair();
  Call h;
  {
    auto relay = start_relay(opts);
    ASSERT_TRUE(relay);
    std::string error;
    auto boss = NostrClient::connect_authed(*relay, ka, &error);
    ASSERT_TRUE(boss) << error;
    h = start_call_on(*boss, ka, {hex(kb)});
    auto a = join_on(*relay, ka, h), b = join_on(*relay, kb, h);
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(a->send_text(kStart));
    ASSERT_TRUE(b->wait_type("recording"));
    audio::SineEncoder la(440), lb(660);
    speak({{a.get(), &la}, {b.get(), &lb}}, 75);
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // past the recorder's once-a-second page flush
    relay->kill_hard();
  }
  auto relay = start_relay(opts);
  ASSERT_TRUE(relay);
  std::string error;
  auto a = NostrClient::connect_authed(*relay, ka, &error);
  ASSERT_TRUE(a) << error;
  std::optional<engine::Event> rec;
  for (int i = 0; i < 100 && !rec; ++i) {
    ReqResult r = a->req("rec" + std::to_string(i), channel_filter({48111}, h.channel));
    if (!r.events.empty()) rec = r.events.front();
    if (!rec) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(rec) << "no 48111 for the interrupted recording";
  EXPECT_EQ(json_field(rec->content, "interrupted"), "true");
  auto tracks = tracks_of(*rec);
  ASSERT_EQ(tracks.size(), 2u) << rec->raw;
  double first = -1;
  for (auto& [who, hz] : {std::pair{hex(ka), 440.0}, std::pair{hex(kb), 660.0}}) {
    HttpReply got = fetch(*relay, tracks[who]["url"], ka);
    ASSERT_EQ(got.status, 200);
    OggOpus f = read_ogg_opus(got.body);
    EXPECT_EQ(f.error, "") << who;
    EXPECT_GE(f.seconds(), 1.4) << who;
    EXPECT_NEAR(hz_between(f.pcm, 0.2, 1.3), hz, 5.0) << who;
    if (first < 0) first = f.seconds();
    EXPECT_EQ(f.seconds(), first) << "padded to the same length";
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/huddle-recordings/" + json_field(rec->content, "recording_id")));
}

// docs/limits.md, "Huddle recordings": 16 recordings and published tracks at once,
// relay-wide; the 17th is refused and the call goes on. Its own relay, so that
// no other test's recording is still being stored.
TEST(HuddleRecordingLimitTest, TheSeventeenthRecordingOrTrackAtOnceIsRefused) {
  auto relay = start_relay(RelayOptions{{"--open", "--rate-limits", "false"}, {}, ""});
  ASSERT_TRUE(relay);
  std::vector<engine::Keypair> keys;
  std::vector<std::string> members;
  for (int i = 0; i < 17; ++i) {
    keys.push_back(engine::generate_keypair());
    if (i > 0) members.push_back(hex(keys.back()));  // keys[0] owns the channels
  }
  std::string error;
  auto boss = NostrClient::connect_authed(*relay, keys[0], &error);
  ASSERT_TRUE(boss) << error;
  Call h = start_call_on(*boss, keys[0], members);
  std::vector<std::unique_ptr<HuddleClient>> peers;
  for (const engine::Keypair& k : keys) {
    peers.push_back(join_on(*relay, k, h));
    ASSERT_TRUE(peers.back());
  }
  ASSERT_TRUE(peers[0]->send_text(kStart));  // one recording
  ASSERT_EQ(json_field(peers[0]->wait_type("recording").value_or(""), "recording"), "true");
  for (size_t i = 1; i < 16; ++i) {  // and 15 tracks: 16 at once
    ASSERT_TRUE(peers[i]->send_text(R"({"action":"publish","type":"track"})"));
    // Its own news: the others' may be waiting before it.
    ASSERT_EQ(json_field(track_news(*peers[i], hex(keys[i])), "published"), "true") << i;
  }
  ASSERT_TRUE(peers[16]->send_text(R"({"action":"publish","type":"track"})"));
  EXPECT_EQ(peers[16]->wait_type("error").value_or("(nothing)"),
            R"({"code":"recording_limit","message":"the relay records as many huddles as it may","type":"error"})");
  EXPECT_EQ(track_news(*peers[0], hex(keys[16]), 500), "") << "nobody is told of a 17th track";
  // Still in the call: a frame of its own reaches the others.
  audio::SineEncoder tone(440);
  ASSERT_TRUE(peers[16]->send_frame(v2_frame(0, 0, -12, 0, tone.next_packet())));
  EXPECT_TRUE(peers[1]->wait_binary());
}

// A relay of its own with the recording limits lowered (docs/limits.md, "Huddle
// recordings"), its owner `boss` subscribed to the 48111s of a call it
// started, with a second participant.
struct LimitedCall {
  std::unique_ptr<RelayProcess> relay;
  engine::Keypair kb = engine::generate_keypair();
  Peer boss;
  Call h;
  std::unique_ptr<HuddleClient> a, b;

  explicit LimitedCall(std::vector<std::string> limits) {
    std::vector<std::string> args = {"--open", "--rate-limits", "false"};
    args.insert(args.end(), limits.begin(), limits.end());
    relay = start_relay(RelayOptions{args, {}, ""});
    if (!relay) return;
    boss = make_peer(*relay);
    h = start_call_on(*boss, boss.key, {hex(kb)});
    a = join_on(*relay, boss.key, h);
    b = join_on(*relay, kb, h);
    subscribe(boss, "rec", channel_filter({48111}, h.channel));
  }
  bool ready() const { return relay && boss.c && a && b; }
};

// At huddle-recording-max-secs the recording stops itself: the room is told,
// and every track is published well-formed, as long as the recording ran.
TEST(HuddleRecordingLimitTest, ARecordingStopsItselfCleanlyAtItsTimeLimit) {
  LimitedCall call({"--huddle-recording-max-secs", "2"});
  ASSERT_TRUE(call.ready());
  ASSERT_TRUE(call.a->send_text(kStart));
  for (HuddleClient* c : {call.a.get(), call.b.get()}) {
    ASSERT_EQ(json_field(c->wait_type("recording").value_or(""), "recording"), "true");
  }
  audio::SineEncoder la(440), lb(660);
  speak({{call.a.get(), &la}, {call.b.get(), &lb}}, 175);  // 3.5 s, past the limit; nobody stops it
  for (HuddleClient* c : {call.a.get(), call.b.get()}) {
    EXPECT_EQ(json_field(c->wait_type("recording").value_or("(nothing)"), "recording"), "false") << "the room is told";
  }
  auto rec = wait_event(call.boss, "rec", 48111);
  ASSERT_TRUE(rec);
  EXPECT_EQ(json_field(rec->content, "interrupted"), "false");
  const double duration = std::stod(json_field(rec->content, "duration"));
  EXPECT_GE(duration, 2.0);
  EXPECT_LE(duration, 3.2) << "stopped within the recorder's once-a-second check of the limit";
  auto tracks = tracks_of(*rec);
  ASSERT_EQ(tracks.size(), 2u) << rec->raw;
  for (auto& [who, hz] : {std::pair{hex(call.boss.key), 440.0}, std::pair{hex(call.kb), 660.0}}) {
    HttpReply got = fetch(*call.relay, tracks[who]["url"], call.boss.key);
    ASSERT_EQ(got.status, 200) << who;
    OggOpus f = read_ogg_opus(got.body);
    EXPECT_EQ(f.error, "") << who;
    // Tracks end on a 20 ms frame, the recording's duration where it stopped.
    EXPECT_NEAR(f.seconds(), duration, 0.021) << who;
    EXPECT_NEAR(f.seconds(), std::stod(tracks[who]["duration"]), 0.001) << who;
    EXPECT_NEAR(hz_between(f.pcm, 0.2, 1.8), hz, 5.0) << who;
  }
}

// At huddle-recording-track-bytes a track ends where it is, well-formed (its
// last page end-of-stream); the recording and the other track go on.
TEST(HuddleRecordingLimitTest, ATrackEndsCleanlyAtItsSizeLimitAndTheRecordingGoesOn) {
  constexpr uint64_t kLimit = 4096;
  LimitedCall call({"--huddle-recording-track-bytes", std::to_string(kLimit)});
  ASSERT_TRUE(call.ready());
  ASSERT_TRUE(call.a->send_text(kStart));
  ASSERT_EQ(json_field(call.b->wait_type("recording").value_or(""), "recording"), "true");
  // 2 s each: the boss at 32 kbit/s (about 8 KB, past the limit near 1 s),
  // the other at 6 kbit/s (well within it).
  audio::SineEncoder la(440), lb(660, 6000);
  speak({{call.a.get(), &la}, {call.b.get(), &lb}}, 100);
  EXPECT_FALSE(call.b->wait_type("recording", 200)) << "the recording goes on past a full track";
  ASSERT_TRUE(call.a->send_text(kStop));
  auto rec = wait_event(call.boss, "rec", 48111);
  ASSERT_TRUE(rec);
  const double duration = std::stod(json_field(rec->content, "duration"));
  EXPECT_GE(duration, 1.9);
  auto tracks = tracks_of(*rec);
  ASSERT_EQ(tracks.size(), 2u) << rec->raw;
  HttpReply full = fetch(*call.relay, tracks[hex(call.boss.key)]["url"], call.boss.key);
  HttpReply within = fetch(*call.relay, tracks[hex(call.kb)]["url"], call.boss.key);
  ASSERT_EQ(full.status, 200);
  ASSERT_EQ(within.status, 200);
  EXPECT_LE(full.body.size(), kLimit);
  OggOpus ended = read_ogg_opus(full.body), whole = read_ogg_opus(within.body);
  EXPECT_EQ(ended.error, "") << "the full track is well-formed";
  EXPECT_EQ(whole.error, "");
  EXPECT_GT(ended.seconds(), 0.5);
  EXPECT_LT(ended.seconds(), duration - 0.5) << "it ended where it was";
  EXPECT_NEAR(hz_between(ended.pcm, 0.2, ended.seconds() - 0.1), 440.0, 5.0);
  EXPECT_NEAR(whole.seconds(), duration, 0.021) << "the other track runs to the end (on a 20 ms frame)";
  EXPECT_NEAR(std::stod(tracks[hex(call.boss.key)]["duration"]), ended.seconds(), 0.001);
}

}  // namespace
}  // namespace buzz::test
