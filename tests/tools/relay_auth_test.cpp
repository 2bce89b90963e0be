// Unit tests for tools/client/relay_auth: the NIP-42 AUTH event and the NIP-98
// header every tool signs carry the tags the relay checks (docs/reference/protocol.md
// §6.2, docs/reference/rest-api.md §1.3), in that order, and verify.
#include "tools/client/relay_auth.h"

#include <gtest/gtest.h>

#include "engine/base64.h"
#include "engine/canonical.h"
#include "engine/event_parse.h"

namespace buzz::client {
namespace {

const engine::Keypair kAuthKey = engine::generate_keypair();

void expect_signed_by_key(const engine::Event& e) {
  EXPECT_EQ(e.pubkey, kAuthKey.pubkey);
  std::string reason;
  EXPECT_EQ(engine::check_event(e, &reason), engine::EventCheck::kOk) << reason;
  EXPECT_EQ(e.raw, engine::serialize_event(e));
}

TEST(RelayAuth, AuthEventAnswersTheChallengeForTheRelay) {
  const engine::Event e = auth_event(kAuthKey, "ws://127.0.0.1:3000", "abc", {}, 1'700'000'000);
  EXPECT_EQ(e.kind, 22242);
  EXPECT_EQ(e.created_at, 1'700'000'000u);
  EXPECT_EQ(e.tags, (std::vector<engine::Tag>{{"relay", "ws://127.0.0.1:3000"}, {"challenge", "abc"}}));
  EXPECT_EQ(e.content, "");
  expect_signed_by_key(e);
}

TEST(RelayAuth, AuthEventCarriesATokenOnlyWhenGiven) {
  const engine::Event e = auth_event(kAuthKey, "ws://r", "abc", "buzz_token");
  EXPECT_EQ(e.tags, (std::vector<engine::Tag>{{"relay", "ws://r"}, {"challenge", "abc"}, {"auth_token", "buzz_token"}}));
  EXPECT_LE(engine::seconds_from(engine::unix_now(), e.created_at), 0);  // now, unless told
  EXPECT_GE(engine::seconds_from(engine::unix_now(), e.created_at), -2);
  expect_signed_by_key(e);
}

engine::Event header_event(const std::string& header) {
  EXPECT_TRUE(header.starts_with("Nostr ")) << header;
  auto json = engine::decode_base64(header.substr(6));
  EXPECT_TRUE(json);
  auto e = engine::parse_event_json(json.value_or(""));
  EXPECT_TRUE(e.ok()) << e.error();
  return e.ok() ? *e : engine::Event{};
}

TEST(RelayAuth, Nip98HeaderSignsUrlMethodAndTheBodysHash) {
  const std::string body = R"({"name":"x"})";
  const engine::Event e = header_event(nip98_authorization(kAuthKey, "http://127.0.0.1:3000/api/tokens", "POST", body));
  EXPECT_EQ(e.kind, 27235);
  EXPECT_EQ(e.content, "");
  ASSERT_EQ(e.tags.size(), 4u);
  EXPECT_EQ(std::vector<engine::Tag>(e.tags.begin(), e.tags.begin() + 3),
            (std::vector<engine::Tag>{{"u", "http://127.0.0.1:3000/api/tokens"},
                                      {"method", "POST"},
                                      {"payload", engine::sha256_hex(body)}}));
  EXPECT_EQ(e.tags[3].size(), 2u);
  EXPECT_EQ(e.tags[3][0], "nonce");
  EXPECT_EQ(e.tags[3][1].size(), 16u);
  expect_signed_by_key(e);
}

TEST(RelayAuth, Nip98HeadersOfOneRequestWithinASecondDiffer) {
  const std::string a = nip98_authorization(kAuthKey, "http://h/api", "GET", "");
  const std::string b = nip98_authorization(kAuthKey, "http://h/api", "GET", "");
  EXPECT_NE(header_event(a).id, header_event(b).id);
}

}  // namespace
}  // namespace buzz::client
