// End-to-end tests of the REST API against the real binary: NIP-98 auth with
// each refused case (none, stale, wrong URL, wrong method, replayed) and
// GET /api/events/{id}, which answers 404 for every event the caller may not
// read — a private channel's message, a gift wrap — exactly as for a missing one.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

std::string hex(const Keypair& key) { return engine::to_hex(key.pubkey); }

class ApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    relay_ = RelayProcess::start(RelayOptions{{"--open"}, {}, ""}, &error);
    ASSERT_NE(relay_, nullptr) << error;
  }
  static void TearDownTestSuite() { relay_.reset(); }

  static std::string url(const std::string& path) { return "http://127.0.0.1:" + std::to_string(relay_->port()) + path; }
  // GET path signed by key (NIP-98).
  static HttpReply get(const Keypair& key, const std::string& path) {
    return http_call(relay_->port(), "GET", path, {{"Authorization", nip98_header(key, url(path), "GET")}});
  }
  static std::unique_ptr<NostrClient> client(const Keypair& key) {
    std::string error;
    auto c = NostrClient::connect_authed(*relay_, key, &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }

  static std::unique_ptr<RelayProcess> relay_;
};

std::unique_ptr<RelayProcess> ApiTest::relay_;

TEST_F(ApiTest, GetEventReturnsTheStoredJson) {
  Keypair key = engine::generate_keypair();
  Event note = make_event(key, 1, "over http");
  ASSERT_TRUE(client(key)->publish(note).accepted);
  HttpReply r = get(engine::generate_keypair(), "/api/events/" + note.id_hex());
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, note.raw);
  EXPECT_EQ(r.headers["content-type"], "application/json");
}

TEST_F(ApiTest, Nip98RefusalsAre401) {
  Keypair key = engine::generate_keypair();
  const std::string path = "/api/events/" + std::string(64, 'a');
  HttpReply none = http_call(relay_->port(), "GET", path);
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body, R"({"error":"authentication required"})");
  HttpReply stale = http_call(relay_->port(), "GET", path,
                              {{"Authorization", nip98_header(key, url(path), "GET", "", unix_now() - 120)}});
  EXPECT_EQ(stale.status, 401);
  EXPECT_EQ(stale.body, R"({"error":"NIP-98: event too old or too new"})");
  HttpReply other_url = http_call(relay_->port(), "GET", path,
                                  {{"Authorization", nip98_header(key, url("/api/events/other"), "GET")}});
  EXPECT_EQ(other_url.status, 401);
  EXPECT_EQ(other_url.body, R"({"error":"NIP-98: u tag does not match the request URL"})");
  HttpReply other_method = http_call(relay_->port(), "GET", path, {{"Authorization", nip98_header(key, url(path), "POST")}});
  EXPECT_EQ(other_method.status, 401);
  EXPECT_EQ(other_method.body, R"({"error":"NIP-98: method tag does not match the request"})");
  const std::string header = nip98_header(key, url(path), "GET");
  EXPECT_EQ(http_call(relay_->port(), "GET", path, {{"Authorization", header}}).status, 404);  // authenticated
  HttpReply replay = http_call(relay_->port(), "GET", path, {{"Authorization", header}});
  EXPECT_EQ(replay.status, 401);
  EXPECT_EQ(replay.body, R"({"error":"NIP-98: replay detected"})");
}

TEST_F(ApiTest, BadIdIs400AndUnknownIs404) {
  Keypair key = engine::generate_keypair();
  HttpReply bad = get(key, "/api/events/xyz");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, R"({"error":"invalid event ID"})");
  HttpReply unknown = get(key, "/api/events/" + std::string(64, 'b'));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body, R"({"error":"event not found"})");
}

TEST_F(ApiTest, PrivateChannelMessageIs404ForANonMember) {
  Keypair owner = engine::generate_keypair(), outsider = engine::generate_keypair();
  auto c = client(owner);
  const std::string ch = "a9100000-0000-4000-8000-" + hex(owner).substr(0, 12);
  ASSERT_TRUE(c->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", "private"}, {"visibility", "private"}})).accepted);
  Event secret = make_event(owner, 9, "members only", {{"h", ch}});
  ASSERT_TRUE(c->publish(secret).accepted);
  HttpReply denied = get(outsider, "/api/events/" + secret.id_hex());
  EXPECT_EQ(denied.status, 404);
  EXPECT_EQ(denied.body, R"({"error":"event not found"})");
  HttpReply member = get(owner, "/api/events/" + secret.id_hex());
  EXPECT_EQ(member.status, 200);
  EXPECT_EQ(member.body, secret.raw);
}

TEST_F(ApiTest, GiftWrapIsNotReadableById) {
  Keypair recipient = engine::generate_keypair(), wrapper = engine::generate_keypair();
  Event wrap = make_event(wrapper, 1059, "ciphertext", {{"p", hex(recipient)}});
  ASSERT_TRUE(client(recipient)->publish(wrap).accepted);
  EXPECT_EQ(get(recipient, "/api/events/" + wrap.id_hex()).status, 404);
}

}  // namespace
}  // namespace buzz::test
