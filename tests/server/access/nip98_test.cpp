// Unit tests for server/nip98 (docs/reference/rest-api.md §1.3): a well-signed header is
// accepted, and each rule has its refused case — scheme, base64, JSON, kind,
// signature, the ±60 s window, the u tag (normalized, from RELAY_URL), the
// method, the payload hash (and its absence where it is required) — plus the
// replay cache.
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>

#include "engine/base64.h"
#include "engine/canonical.h"
#include "engine/signature.h"
#include "server/access/nip98.h"

namespace buzz::server {

// Names a replay-cache answer in failure messages.
void PrintTo(Nip98ReplayCache::Use u, std::ostream* os) {
  *os << (u == Nip98ReplayCache::Use::kFirst ? "kFirst" : u == Nip98ReplayCache::Use::kReplay ? "kReplay" : "kFull");
}

namespace {

constexpr uint64_t kNip98Now = 1'800'000'000;
const std::string kNip98Base = nip98_base_url("ws://localhost:3000/");

std::string sha256_hex(std::string_view s) {
  uint8_t d[32];
  engine::sha256(s.data(), s.size(), d);
  return engine::to_hex(d, 32);
}

struct Signed {
  engine::Keypair key = engine::generate_keypair();
  engine::Event event;
  std::string header;
};

Signed sign_request(std::vector<engine::Tag> tags, uint16_t kind = kind::kHttpAuth, uint64_t at = kNip98Now) {
  Signed s;
  s.event = engine::signed_event(s.key, kind, at, std::move(tags));
  s.header = "Nostr " + engine::encode_base64(s.event.raw);
  return s;
}

engine::Result<Nip98Signer> check_header(const std::string& header, std::string_view method = "POST",
                                      std::string_view path = "/api/tokens", std::string_view body = "",
                                      bool payload_required = false, uint64_t now = kNip98Now) {
  return verify_nip98({header, method, path, body, payload_required}, kNip98Base, now);
}

TEST(Nip98Test, BaseUrlComesFromRelayUrl) {
  EXPECT_EQ(kNip98Base, "http://localhost:3000");
  EXPECT_EQ(nip98_base_url(" wss://relay.example.com// "), "https://relay.example.com");
}

TEST(Nip98Test, AWellSignedRequestAuthenticatesItsSigner) {
  const std::string body = R"({"name":"ci"})";
  Signed s = sign_request({{"u", "http://127.0.0.1:3000/api/tokens"}, {"method", "post"}, {"payload", sha256_hex(body)}});
  auto who = check_header(s.header, "POST", "/api/tokens", body, true);
  ASSERT_TRUE(who.ok()) << who.error();
  EXPECT_EQ(who->pubkey, s.key.pubkey);
  EXPECT_EQ(who->event_id, s.event.id);
  // URL-safe base64 without padding is accepted too.
  const std::string urlsafe = "Nostr " + engine::encode_base64url_unpadded(s.event.raw);
  EXPECT_TRUE(check_header(urlsafe, "POST", "/api/tokens", body, true).ok());
}

TEST(Nip98Test, EveryRuleHasItsRefusal) {
  const std::string url = "http://localhost:3000/api/tokens";
  struct Case {
    std::string name, header, method = "POST", body, why;  // why: the reason, or its start
    bool payload_required = false;
    uint64_t now = kNip98Now;
  };
  Signed good = sign_request({{"u", url}, {"method", "POST"}});
  Signed tampered = good;
  tampered.event.raw.replace(tampered.event.raw.find("\"content\":\"\""), 12, "\"content\":\"x\"");
  std::vector<Case> cases = {
      {"bearer scheme", "Bearer buzz_x", "POST", "", "missing Nostr auth"},
      {"bad base64", "Nostr !!!", "POST", "", "invalid base64 in Nostr auth"},
      {"not an event", "Nostr " + engine::encode_base64("{}"), "POST", "", "invalid NIP-98 event JSON"},
      {"wrong kind", sign_request({{"u", url}, {"method", "POST"}}, 1).header, "POST", "", "NIP-98: kind must be 27235"},
      {"tampered", "Nostr " + engine::encode_base64(tampered.event.raw), "POST", "", "NIP-98: invalid: invalid event id: computed "},
      {"stale", good.header, "POST", "", "NIP-98: event too old or too new", false, kNip98Now + 61},
      {"2^63 + now",
       sign_request({{"u", url}, {"method", "POST"}}, kind::kHttpAuth, (uint64_t(1) << 63) + kNip98Now).header, "POST", "",
       "NIP-98: event too old or too new"},
      {"other url", sign_request({{"u", "http://localhost:3000/api/other"}, {"method", "POST"}}).header, "POST", "",
       "NIP-98: u tag does not match the request URL"},
      {"no u", sign_request({{"method", "POST"}}).header, "POST", "", "NIP-98: u tag does not match the request URL"},
      {"other method", good.header, "GET", "", "NIP-98: method tag does not match the request"},
      {"payload mismatch", sign_request({{"u", url}, {"method", "POST"}, {"payload", sha256_hex("a")}}).header, "POST", "b",
       "NIP-98: payload hash does not match the body"},
      {"payload required", good.header, "POST", "{}", "NIP-98: payload tag required", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = verify_nip98({c.header, c.method, "/api/tokens", c.body, c.payload_required}, kNip98Base, c.now);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().starts_with(c.why)) << r.error();
  }
  EXPECT_TRUE(check_header(good.header).ok());  // the untouched one still passes
}

TEST(Nip98Test, ReplayCacheAcceptsAnIdOncePerWindow) {
  using Use = Nip98ReplayCache::Use;
  Nip98ReplayCache cache;
  Nip98Signer a{{}, {}, 100}, b{{}, {}, 150};
  b.event_id[0] = 1;
  EXPECT_EQ(cache.first_use(a, 100), Use::kFirst);
  EXPECT_EQ(cache.first_use(a, 150), Use::kReplay);
  EXPECT_EQ(cache.first_use(b, 150), Use::kFirst);
  EXPECT_EQ(cache.first_use(a, 161), Use::kFirst);  // past created_at + 60 s it no longer verifies, nor is kept
}

// A header dated 60 s ahead verifies for 120 s from its first use: its id is
// kept that long, and not one second less (it was forgotten at T + 120).
TEST(Nip98Test, ReplayCacheKeepsAFutureDatedIdUntilItCanNoLongerVerify) {
  using Use = Nip98ReplayCache::Use;
  constexpr uint64_t kT = 1'000'000;
  Nip98ReplayCache cache;
  Nip98Signer ahead{{}, {}, kT + kNip98MaxSkewSecs};
  ASSERT_EQ(cache.first_use(ahead, kT), Use::kFirst);
  for (uint64_t later : {kT + 60, kT + 119, kT + 120}) {
    SCOPED_TRACE(later - kT);
    EXPECT_EQ(cache.first_use(ahead, later), Use::kReplay);
  }
  EXPECT_EQ(cache.first_use(ahead, kT + 121), Use::kFirst);  // verify_nip98 refuses it by then
}

// Full of ids that still verify, the cache refuses a new one rather than
// forget one that could be replayed.
TEST(Nip98Test, ReplayCacheFullOfLiveIdsRefusesANewOne) {
  using Use = Nip98ReplayCache::Use;
  constexpr uint64_t kT = 1'000'000;
  Nip98ReplayCache cache;
  Nip98Signer s{{}, {}, kT};
  for (size_t i = 0; i < Nip98ReplayCache::kCapacity; ++i) {
    std::memcpy(s.event_id.data(), &i, sizeof i);
    ASSERT_EQ(cache.first_use(s, kT), Use::kFirst);
  }
  Nip98Signer first{{}, {}, kT}, next{{}, {}, kT};
  next.event_id.fill(0xee);
  EXPECT_EQ(cache.first_use(next, kT + 60), Use::kFull);
  EXPECT_EQ(cache.first_use(first, kT + 60), Use::kReplay);  // the oldest is still held
  EXPECT_EQ(cache.first_use(next, kT + 61), Use::kFirst);    // once they expire, there is room
}

}  // namespace
}  // namespace buzz::server
