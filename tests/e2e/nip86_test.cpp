// NIP-86, the relay management API (docs/reference/nip86.md), against the real
// binary: who is refused (no or a bad NIP-98 header, a replay, a non-member, a
// plain member, an admin doing what NIP-43 keeps for the owner), then what each
// method does at once — a banned pubkey's session closed, its AUTH and uploads refused,
// a banned event gone from every read and refused again, a blocked address
// refused at the door — and the relay name in NIP-11, after a restart too.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <simdjson.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "engine/signature.h"
#include "tests/e2e/media_fixture.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/raw_connection.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using engine::Keypair;

std::string rpc_body(const std::string& method, const std::vector<std::string>& params = {}) {
  std::string body = "{\"method\":" + json_quote(method) + ",\"params\":[";
  for (size_t i = 0; i < params.size(); ++i) body += (i ? "," : "") + json_quote(params[i]);
  return body + "]}";
}

// The "error" of a NIP-86 reply ("" when it has none).
std::string error_of(const HttpReply& r) {
  simdjson::dom::parser parser;
  std::string_view error;
  if (parser.parse(r.body)["error"].get(error)) return "";
  return std::string(error);
}

// A closed relay with an owner; an admin and a member added by the owner over NIP-86.
class Nip86Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    relay_ = RelayProcess::start(RelayOptions{{"--owner", hex(owner_)}, {}, ""}, &error);
    ASSERT_NE(relay_, nullptr) << error;
    ASSERT_EQ(call(owner_, "allowpubkey", {hex(admin_), "", "admin"}).body, R"({"result":true})");
    ASSERT_EQ(call(owner_, "allowpubkey", {hex(member_)}).body, R"({"result":true})");
  }
  static void TearDownTestSuite() { relay_.reset(); }

  static std::string url() { return "http://127.0.0.1:" + std::to_string(relay_->port()) + "/"; }
  static HttpReply post(const std::string& body, const std::string& authorization,
                        const std::string& type = "application/nostr+json+rpc") {
    client::HttpHeaders headers = {{"Content-Type", type}};
    if (!authorization.empty()) headers.emplace_back("Authorization", authorization);
    return http_call(relay_->port(), "POST", "/", headers, body);
  }
  static HttpReply call(const Keypair& key, const std::string& method, const std::vector<std::string>& params = {}) {
    const std::string body = rpc_body(method, params);
    return post(body, nip98_header(key, url(), "POST", body));
  }
  static std::unique_ptr<NostrClient> client(const Keypair& key) {
    std::string error;
    auto c = NostrClient::connect_authed(*relay_, key, &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }
  static OkReply auth_reply(const Keypair& key) {
    std::string error;
    auto c = NostrClient::connect(*relay_, &error);
    EXPECT_NE(c, nullptr) << error;
    return c ? c->authenticate(key) : OkReply{};
  }
  // A member of its own, for a test that bans or removes it.
  static Keypair new_member() {
    Keypair k = engine::generate_keypair();
    EXPECT_EQ(call(owner_, "allowpubkey", {hex(k)}).body, R"({"result":true})");
    return k;
  }

  static inline const Keypair owner_ = engine::generate_keypair();
  static inline const Keypair admin_ = engine::generate_keypair();
  static inline const Keypair member_ = engine::generate_keypair();
  static inline std::unique_ptr<RelayProcess> relay_;
};

TEST_F(Nip86Test, ACallWithoutAValidNip98HeaderIs401) {
  const std::string body = rpc_body("listbannedpubkeys");
  HttpReply none = post(body, "");
  EXPECT_EQ(none.status, 401);
  EXPECT_NE(none.body.find(R"("result":null)"), std::string::npos) << none.body;
  EXPECT_NE(error_of(none).find("unauthorized"), std::string::npos) << none.body;
  // Signed for another body (the payload tag), another URL, or badly signed.
  EXPECT_EQ(post(body, nip98_header(owner_, url(), "POST", rpc_body("supportedmethods"))).status, 401);
  EXPECT_EQ(post(body, nip98_header(owner_, "http://elsewhere.example/", "POST", body)).status, 401);
  EXPECT_EQ(post(body, nip98_header(owner_, url(), "POST", "")).status, 401);  // no payload tag
  EXPECT_EQ(post(body, "Nostr bm90IGFuIGV2ZW50").status, 401);
}

TEST_F(Nip86Test, AReplayedSignatureIsRefused) {
  const std::string body = rpc_body("listbannedpubkeys");
  const std::string header = nip98_header(owner_, url(), "POST", body);
  EXPECT_EQ(post(body, header).status, 200);
  HttpReply again = post(body, header);
  EXPECT_EQ(again.status, 401);
  EXPECT_NE(error_of(again).find("replay"), std::string::npos) << again.body;
}

TEST_F(Nip86Test, NonMembersAndPlainMembersAre403) {
  for (const Keypair& who : {engine::generate_keypair(), member_}) {
    HttpReply r = call(who, "banpubkey", {std::string(64, 'e')});
    EXPECT_EQ(r.status, 403) << r.body;
    EXPECT_NE(error_of(r).find("only the relay owner and admins"), std::string::npos) << r.body;
  }
  EXPECT_EQ(call(owner_, "listbannedpubkeys").body, R"({"result":[]})");
}

TEST_F(Nip86Test, UnknownMethodsAndBadParamsSayWhatIsWrong) {
  HttpReply unknown = call(admin_, "dropalltables");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(error_of(unknown), "unknown method: dropalltables (supportedmethods lists them)");
  EXPECT_EQ(error_of(call(admin_, "banpubkey")), "invalid params: banpubkey needs a pubkey");
  EXPECT_EQ(error_of(call(admin_, "banpubkey", {"xyz"})), "invalid params: invalid pubkey: expected 64 hex characters");
  EXPECT_EQ(error_of(call(admin_, "blockip", {"999.1.1.1"})), "invalid params: invalid IP address: 999.1.1.1");
  const std::string garbage = "{\"params\":[]}";
  HttpReply no_method = post(garbage, nip98_header(admin_, url(), "POST", garbage));
  EXPECT_EQ(no_method.status, 400);
  EXPECT_EQ(error_of(no_method), "invalid request: missing or non-string \"method\"");
  // Another Content-Type is not NIP-86: the relay's ordinary answer.
  EXPECT_EQ(post(rpc_body("supportedmethods"), "", "application/json").status, 404);
}

TEST_F(Nip86Test, SupportedMethodsListsWhatTheRelayDoes) {
  for (const Keypair& who : {owner_, admin_}) {
    HttpReply r = call(who, "supportedmethods");
    EXPECT_EQ(r.status, 200);
    for (const char* m : {"allowpubkey", "disallowpubkey", "listallowedpubkeys", "banpubkey", "listbannedpubkeys",
                          "banevent", "allowevent", "listbannedevents", "changerelayname", "changerelaydescription",
                          "changerelayicon", "blockip", "unblockip", "listblockedips"}) {
      EXPECT_NE(r.body.find(std::string("\"") + m + "\""), std::string::npos) << m << " in " << r.body;
    }
  }
}

// The NIP-43 rules (docs/reference/protocol.md §7.3): an admin adds and removes
// members only; the owner cannot be removed or banned by anyone.
TEST_F(Nip86Test, AnAdminCannotDoWhatNip43KeepsForTheOwner) {
  const Keypair other_admin = engine::generate_keypair(), stranger = engine::generate_keypair();
  HttpReply grant = call(admin_, "allowpubkey", {hex(stranger), "", "admin"});
  EXPECT_EQ(grant.status, 403);
  EXPECT_EQ(error_of(grant), "invalid: actor not authorized: only owner can grant admin role");
  EXPECT_EQ(error_of(call(admin_, "disallowpubkey", {hex(owner_)})), "invalid: cannot remove the relay owner");
  EXPECT_EQ(error_of(call(admin_, "banpubkey", {hex(owner_)})), "actor not authorized: cannot ban the relay owner");
  EXPECT_EQ(call(owner_, "allowpubkey", {hex(other_admin), "", "admin"}).body, R"({"result":true})");
  EXPECT_EQ(error_of(call(admin_, "disallowpubkey", {hex(other_admin)})),
            "invalid: actor not authorized: admins can only remove members");
  EXPECT_EQ(error_of(call(admin_, "banpubkey", {hex(other_admin)})),
            "actor not authorized: admins can only ban members and non-members");
  HttpReply promote = call(admin_, "allowpubkey", {hex(member_), "", "admin"});  // a role change: kind 9032
  EXPECT_EQ(promote.status, 403);
  EXPECT_EQ(error_of(promote), "invalid: actor not authorized: must be owner");
  // What an admin may: a member in, and out again.
  EXPECT_EQ(call(admin_, "allowpubkey", {hex(stranger)}).body, R"({"result":true})");
  EXPECT_NE(call(owner_, "listallowedpubkeys").body.find(hex(stranger) + R"(","reason":"","role":"member")"),
            std::string::npos);
  EXPECT_EQ(call(admin_, "disallowpubkey", {hex(stranger)}).body, R"({"result":true})");
  EXPECT_EQ(call(owner_, "listallowedpubkeys").body.find(hex(stranger)), std::string::npos);
}

TEST_F(Nip86Test, ADisallowedMembersSessionClosesAtOnce) {
  const Keypair leaving = new_member();
  auto session = client(leaving);
  ASSERT_TRUE(session);
  EXPECT_EQ(call(admin_, "disallowpubkey", {hex(leaving)}).body, R"({"result":true})");
  EXPECT_EQ(session->close_code_within(), 1008);
  EXPECT_EQ(auth_reply(leaving).reason, "restricted: not a relay member");
}

TEST_F(Nip86Test, ABannedPubkeysSessionClosesAndItIsRefusedEverywhere) {
  const Keypair banned = new_member();
  auto session = client(banned);
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->req("live", R"({"kinds":[1]})").eose);
  EXPECT_EQ(call(admin_, "banpubkey", {hex(banned), "spam"}).body, R"({"result":true})");
  EXPECT_EQ(session->close_code_within(), 1008);
  EXPECT_EQ(auth_reply(banned).reason, "restricted: pubkey is banned");
  // Over REST (NIP-98), and its events through another's hands.
  const std::string api = "http://127.0.0.1:" + std::to_string(relay_->port()) + "/api/relay/members/me";
  EXPECT_EQ(http_call(relay_->port(), "GET", "/api/relay/members/me", {{"Authorization", nip98_header(banned, api, "GET")}}).status,
            403);
  // A Blossom upload, refused before its body is stored; taken again once unbanned (below).
  const std::string blob = "a file of the banned key's";
  const auto upload = [&] {
    const std::string sha = sha256_hex(blob);
    return http_call(relay_->port(), "PUT", "/media/upload", {{"Authorization", blossom_auth(banned, sha)}, {"X-SHA-256", sha}},
                     blob);
  };
  const HttpReply refused = upload();
  EXPECT_EQ(refused.status, 403);
  EXPECT_NE(refused.body.find("pubkey is banned"), std::string::npos) << refused.body;
  auto owner = client(owner_);
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->publish(make_event(banned, 1, "relayed by someone else")).reason, "blocked: pubkey is banned");
  EXPECT_NE(call(owner_, "listbannedpubkeys").body.find(R"({"pubkey":")" + hex(banned) + R"(","reason":"spam"})"),
            std::string::npos);
  EXPECT_EQ(call(owner_, "unbanpubkey", {hex(banned)}).body, R"({"result":true})");
  EXPECT_TRUE(auth_reply(banned).accepted);
  EXPECT_EQ(upload().status, 200);
}

TEST_F(Nip86Test, ABannedEventIsGoneFromEveryReadAndCannotBePublishedAgain) {
  auto author = client(member_);
  ASSERT_TRUE(author);
  const engine::Event note = make_event(member_, 1, "the quokka manifesto");
  ASSERT_TRUE(author->publish(note).accepted);
  const std::string by_id = R"({"ids":[")" + note.id_hex() + R"("]})";
  ASSERT_EQ(author->req("before", by_id).events.size(), 1u);
  bool indexed = false;  // the search index takes it within a moment
  for (int i = 0; i < 30 && !indexed; ++i) {
    indexed = author->req("indexed", R"({"kinds":[1],"search":"quokka"})").events.size() == 1;
    if (!indexed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(indexed);

  EXPECT_EQ(call(admin_, "banevent", {note.id_hex(), "off topic"}).body, R"({"result":true})");
  EXPECT_TRUE(author->req("by-id", by_id).events.empty());
  EXPECT_TRUE(author->req("by-author", R"({"kinds":[1],"authors":[")" + hex(member_) + R"("]})").events.empty());
  EXPECT_TRUE(author->req("search", R"({"kinds":[1],"search":"quokka"})").events.empty());
  const std::string path = "/api/events/" + note.id_hex();
  const std::string api = "http://127.0.0.1:" + std::to_string(relay_->port()) + path;
  EXPECT_EQ(http_call(relay_->port(), "GET", path, {{"Authorization", nip98_header(member_, api, "GET")}}).status, 404);
  EXPECT_EQ(author->publish(note).reason, "blocked: event is banned");
  EXPECT_NE(call(owner_, "listbannedevents").body.find(R"({"id":")" + note.id_hex() + R"(","reason":"off topic"})"),
            std::string::npos);

  EXPECT_EQ(call(owner_, "allowevent", {note.id_hex()}).body, R"({"result":true})");
  EXPECT_EQ(author->req("after", by_id).events.size(), 1u);
}

TEST_F(Nip86Test, ABlockedAddressIsRefusedAtTheDoor) {
  EXPECT_EQ(call(admin_, "blockip", {"127.0.0.2", "scanner"}).body, R"({"result":true})");
  EXPECT_EQ(call(admin_, "listblockedips").body, R"({"result":[{"ip":"127.0.0.2","reason":"scanner"}]})");
  {
    RawConnection blocked(relay_->port(), "127.0.0.2");
    blocked.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_NE(blocked.read("blocked").find("403"), std::string::npos);
  }
  {
    RawConnection blocked(relay_->port(), "127.0.0.2");
    blocked.send("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
    EXPECT_NE(blocked.read("blocked").find("403"), std::string::npos);
  }
  EXPECT_EQ(http_get(relay_->port(), "/health").status, 200);  // 127.0.0.1 is not blocked
  EXPECT_EQ(call(admin_, "unblockip", {"127.0.0.2"}).body, R"({"result":true})");
  RawConnection unblocked(relay_->port(), "127.0.0.2");
  unblocked.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(unblocked.read("\r\n\r\n").find("200"), std::string::npos);
}

// NIP-11 from the operator's configuration, and NIP-86's changes over it, kept across a restart.
TEST(Nip86InfoTest, TheRelayNameChangesInNip11AtOnceAndAfterARestart) {
  const Keypair owner = engine::generate_keypair();
  RelayOptions options{{"--owner", hex(owner), "--relay-name", "Configured", "--relay-contact", "mailto:ops@example.com",
                        "--relay-terms-of-service", "https://example.com/tos", "--threads", "1"},
                       {{"BUZZ_RELAY_BANNER", "https://example.com/banner.png"}},
                       ""};
  std::string error;
  auto relay = RelayProcess::start(options, &error);
  ASSERT_NE(relay, nullptr) << error;
  auto info = [&] { return http_get(relay->port(), "/info").body; };
  std::string doc = info();
  for (const std::string& want : std::vector<std::string>{
           R"("name":"Configured")", R"("contact":"mailto:ops@example.com")", R"("terms_of_service":"https://example.com/tos")",
        R"("banner":"https://example.com/banner.png")", R"("pubkey":")" + hex(owner) + "\"", R"("software":"buzz")",
        R"("auth_required":true)", R"("restricted_writes":true)", R"("max_message_length":131072)",
        R"("max_filters":10)", R"("max_limit":500)", R"("payment_required":false)"}) {
    EXPECT_NE(doc.find(want), std::string::npos) << want << " in " << doc;
  }
  EXPECT_EQ(doc.find("block/buzz"), std::string::npos) << doc;

  const std::string url = "http://127.0.0.1:" + std::to_string(relay->port()) + "/";
  const std::string body = rpc_body("changerelayname", {"Renamed"});
  HttpReply r = http_call(relay->port(), "POST", "/",
                          {{"Content-Type", "application/nostr+json+rpc"}, {"Authorization", nip98_header(owner, url, "POST", body)}},
                          body);
  EXPECT_EQ(r.body, R"({"result":true})");
  EXPECT_NE(info().find(R"("name":"Renamed")"), std::string::npos) << info();

  const std::string dir = relay->data_dir();
  relay->kill_hard();
  auto again = RelayProcess::start(RelayOptions{options.extra_args, options.env, dir}, &error);
  ASSERT_NE(again, nullptr) << error;
  doc = http_get(again->port(), "/info").body;
  EXPECT_NE(doc.find(R"("name":"Renamed")"), std::string::npos) << doc;
  EXPECT_NE(doc.find(R"("contact":"mailto:ops@example.com")"), std::string::npos) << doc;
}

}  // namespace
}  // namespace buzz::test
