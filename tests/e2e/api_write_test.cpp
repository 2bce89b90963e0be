// End-to-end tests of the REST API's writes against the real binary:
// POST /api/events (the WebSocket pipeline over HTTP, answered when the batch
// is durable, pipelined requests answered in order) and API tokens (mint,
// list, revoke, scopes, channel lists, escalation, limits, and the token in a
// WebSocket AUTH) — each with its refused cases.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/api_fixture.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

// A string field of a JSON body, or "".
std::string body_field(const std::string& body, const char* name) {
  simdjson::dom::parser parser;
  std::string_view v;
  if (parser.parse(body)[name].get(v)) return "";
  return std::string(v);
}

class ApiWriteTest : public ApiFixture<ApiWriteTest> {
 public:
  static std::vector<std::string> relay_args() { return {"--mint-rate-limit", "12"}; }

 protected:
  static HttpReply bearer_call(const std::string& token, const std::string& method, const std::string& path,
                               const std::string& body = "") {
    return http_call(relay_->port(), method, path, {{"Authorization", "Bearer " + token}}, body);
  }
  static HttpReply post_event(const Keypair& key, const Event& e) { return signed_call(key, "POST", "/api/events", e.raw); }
  // Mints a token for key over NIP-98; the raw token, or "" (with the reply in *out).
  static std::string mint(const Keypair& key, const std::string& body, HttpReply* out = nullptr) {
    HttpReply r = signed_call(key, "POST", "/api/tokens", body);
    if (out) *out = r;
    return r.status == 201 ? body_field(r.body, "token") : "";
  }
  // A channel created by owner over WebSocket.
  static std::string channel(const Keypair& owner, const std::string& tag, const std::string& visibility) {
    const std::string ch = tag + "000000-0000-4000-8000-" + hex(owner).substr(0, 12);
    EXPECT_TRUE(client(owner)->publish(make_event(owner, 9007, "", {{"h", ch}, {"name", tag}, {"visibility", visibility}})).accepted);
    return ch;
  }
};

TEST_F(ApiWriteTest, PostedEventIsStoredAndFannedOut) {
  Keypair author = engine::generate_keypair(), reader = engine::generate_keypair();
  auto sub = client(reader);
  ASSERT_TRUE(sub->req("live", R"({"kinds":[1],"authors":[")" + hex(author) + R"("]})").eose);
  Event note = make_event(author, 1, "posted over http");
  HttpReply r = post_event(author, note);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"accepted":true,"event_id":")" + note.id_hex() + R"(","message":""})");
  EXPECT_EQ(r.headers["access-control-allow-origin"], "*");
  auto live = sub->wait_for([&](const RelayMessage& m) { return m.type == "EVENT" && m.event.id == note.id; });
  ASSERT_TRUE(live.has_value());
  ReqResult history = client(reader)->req("h", R"({"ids":[")" + note.id_hex() + R"("]})");
  ASSERT_EQ(history.events.size(), 1u);
  EXPECT_EQ(history.events[0].raw, note.raw);

  HttpReply again = post_event(author, note);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, R"({"accepted":true,"event_id":")" + note.id_hex() + R"(","message":"duplicate:"})");
}

TEST_F(ApiWriteTest, PostedEventRefusals) {
  Keypair author = engine::generate_keypair(), other = engine::generate_keypair();
  Event note = make_event(other, 1, "not mine");
  HttpReply mismatch = post_event(author, note);
  EXPECT_EQ(mismatch.status, 403);
  EXPECT_EQ(mismatch.body, R"({"error":"invalid: event pubkey does not match authenticated identity"})");

  // The HTTP order (docs/reference/rest-api.md §4): 22242 at step 1 in its own words, the
  // signature (2) before the author (3).
  HttpReply auth = post_event(author, client::auth_event(author, "ws://x", "c"));
  EXPECT_EQ(auth.status, 400);
  EXPECT_EQ(auth.body, R"({"error":"invalid: AUTH events cannot be submitted"})");
  // A Blossom upload authorization is never relayed (docs/reference/media.md §8.4).
  HttpReply blossom = post_event(author, make_event(author, 24242, "upload", {{"t", "upload"}}));
  EXPECT_EQ(blossom.status, 400);
  EXPECT_EQ(blossom.body, R"({"error":"restricted: blossom auth events are not relayed"})");
  HttpReply forged = post_event(author, with_bad_signature(make_event(other, 1, "not mine either")));
  EXPECT_EQ(forged.status, 400);
  EXPECT_EQ(forged.body, R"({"error":"invalid: invalid schnorr signature"})");

  HttpReply wrap = post_event(author, make_event(author, 1059, "x", {{"p", hex(other)}}));
  EXPECT_EQ(wrap.status, 400);
  EXPECT_EQ(wrap.body, R"({"error":"invalid: kind 1059 is only accepted via WebSocket"})");

  HttpReply garbage = signed_call(author, "POST", "/api/events", R"({"kind":1})");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_TRUE(garbage.body.starts_with(R"({"error":"invalid event JSON: )")) << garbage.body;

  Event tampered = make_event(author, 1, "signed");
  tampered.raw.replace(tampered.raw.find("signed"), 6, "forged");
  HttpReply bad_id = post_event(author, tampered);
  EXPECT_EQ(bad_id.status, 400);
  EXPECT_TRUE(bad_id.body.starts_with(R"({"error":"invalid: )")) << bad_id.body;

  HttpReply unsigned_call = http_call(relay_->port(), "POST", "/api/events", {}, note.raw);
  EXPECT_EQ(unsigned_call.status, 401);
}

TEST_F(ApiWriteTest, PostToAPrivateChannelNeedsMembership) {
  Keypair owner = engine::generate_keypair(), outsider = engine::generate_keypair();
  const std::string ch = channel(owner, "b1", "private");
  HttpReply denied = post_event(outsider, make_event(outsider, 9, "let me in", {{"h", ch}}));
  EXPECT_EQ(denied.status, 400);
  EXPECT_EQ(denied.body, R"({"error":"restricted: not a channel member"})");
  HttpReply member = post_event(owner, make_event(owner, 9, "hello team", {{"h", ch}}));
  EXPECT_EQ(member.status, 200) << member.body;
}

// Two requests in one write: the second waits for the first's deferred answer.
TEST_F(ApiWriteTest, PipelinedRequestsAreAnsweredInOrder) {
  Keypair author = engine::generate_keypair();
  Event note = make_event(author, 1, "pipelined");
  const std::string auth = nip98_header(author, url("/api/events"), "POST", note.raw);
  std::string wire = "POST /api/events HTTP/1.1\r\nHost: x\r\nAuthorization: " + auth +
                     "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(note.raw.size()) +
                     "\r\n\r\n" + note.raw + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(relay_->port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::send(fd, wire.data(), wire.size(), 0), ssize_t(wire.size()));
  std::string got;
  char buf[4096];
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, size_t(n));
  ::close(fd);
  size_t first = got.find("\"accepted\":true"), second = got.find("\r\n\r\nok");
  ASSERT_NE(first, std::string::npos) << got;
  ASSERT_NE(second, std::string::npos) << got;
  EXPECT_LT(first, second);
}

TEST_F(ApiWriteTest, MintListAndUseAToken) {
  Keypair user = engine::generate_keypair();
  HttpReply minted;
  std::string token = mint(user, R"({"name":"agent","scopes":["channels:read","messages:read","channels:read"]})", &minted);
  ASSERT_EQ(minted.status, 201) << minted.body;
  EXPECT_EQ(token.size(), 69u);
  EXPECT_TRUE(token.starts_with("buzz_"));
  EXPECT_NE(minted.body.find(R"("scopes":["channels:read","messages:read"])"), std::string::npos) << minted.body;
  EXPECT_NE(minted.body.find(R"("expires_at":null)"), std::string::npos);

  EXPECT_EQ(bearer_call(token, "GET", "/api/channels").status, 200);
  HttpReply list = bearer_call(token, "GET", "/api/tokens");
  EXPECT_EQ(list.status, 200);
  EXPECT_NE(list.body.find(R"("name":"agent")"), std::string::npos);
  EXPECT_EQ(list.body.find(token), std::string::npos) << "the raw token is shown once only";

  // Signed by the key itself (the web client's way), the list is the same.
  HttpReply by_nip98 = signed_call(user, "GET", "/api/tokens");
  EXPECT_EQ(by_nip98.status, 200) << by_nip98.body;
  EXPECT_EQ(by_nip98.body, list.body);
  EXPECT_EQ(bearer_call("buzz_" + std::string(64, 'f'), "GET", "/api/channels").body, R"({"error":"invalid_token"})");
  EXPECT_EQ(bearer_call("sprout_abc", "GET", "/api/channels").status, 401);
}

// The web client's way: mint, list and revoke with NIP-98 alone, and never another's token.
TEST_F(ApiWriteTest, SignedRequestsListAndRevokeOnlyTheirOwnTokens) {
  Keypair user = engine::generate_keypair(), other = engine::generate_keypair();
  HttpReply minted;
  std::string token = mint(user, R"({"name":"laptop","scopes":["messages:read"]})", &minted);
  ASSERT_FALSE(token.empty()) << minted.body;
  const std::string id = body_field(minted.body, "id");
  std::string others = mint(other, R"({"name":"theirs","scopes":["messages:read"]})");
  ASSERT_FALSE(others.empty());

  HttpReply theirs = signed_call(other, "GET", "/api/tokens");
  EXPECT_EQ(theirs.status, 200);
  EXPECT_EQ(theirs.body.find(id), std::string::npos) << "another's list never shows my token";
  HttpReply foreign = signed_call(other, "DELETE", "/api/tokens/" + id);
  EXPECT_EQ(foreign.status, 404);
  EXPECT_EQ(foreign.body, R"({"error":"not_found","message":"Token not found or not owned by caller"})");
  EXPECT_EQ(bearer_call(token, "GET", "/api/tokens").status, 200) << "still alive";
  // A signed request is bound to its method and URL: one signed for the list does not revoke.
  HttpReply misused = http_call(relay_->port(), "DELETE", "/api/tokens/" + id,
                                {{"Authorization", nip98_header(user, url("/api/tokens"), "GET")}});
  EXPECT_EQ(misused.status, 401) << misused.body;

  EXPECT_EQ(signed_call(user, "DELETE", "/api/tokens/" + id).status, 204);
  EXPECT_EQ(bearer_call(token, "GET", "/api/tokens").body, R"({"error":"token_revoked"})");
  HttpReply again = signed_call(user, "DELETE", "/api/tokens/" + id);
  EXPECT_EQ(again.status, 409);
  HttpReply listed = signed_call(user, "GET", "/api/tokens");
  EXPECT_NE(listed.body.find(R"("revoked_at":")"), std::string::npos) << listed.body;
  // The panic button signed too; the other person's token lives on.
  EXPECT_EQ(signed_call(other, "DELETE", "/api/tokens").body, R"({"revoked_count":1})");
  EXPECT_EQ(bearer_call(others, "GET", "/api/tokens").body, R"({"error":"token_revoked"})");
}

TEST_F(ApiWriteTest, MintRefusals) {
  Keypair user = engine::generate_keypair();
  // POST /api/tokens demands a payload-signed NIP-98 header.
  const std::string body = R"({"name":"n","scopes":["messages:read"]})";
  HttpReply no_payload = http_call(relay_->port(), "POST", "/api/tokens",
                                   {{"Authorization", nip98_header(user, url("/api/tokens"), "POST")}}, body);
  EXPECT_EQ(no_payload.status, 401);
  EXPECT_EQ(no_payload.body, R"({"error":"invalid_auth","message":"NIP-98 payload tag required for POST /api/tokens"})");
  HttpReply r;
  mint(user, R"({"name":"n","scopes":["admin:users"]})", &r);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"error":"invalid_scopes","message":"scope requires admin: admin:users"})");
  mint(user, R"({"name":"n","scopes":["proxy:submit"]})", &r);
  EXPECT_EQ(r.body, R"({"error":"invalid_scopes","message":"scope requires admin: proxy:submit"})");
  mint(user, R"({"name":"n","scopes":["root"]})", &r);
  EXPECT_EQ(r.body, R"({"error":"invalid_scopes","message":"unknown scope: root"})");
  mint(user, R"({"name":"n","scopes":[]})", &r);
  EXPECT_EQ(r.body, R"({"error":"invalid_scopes: scopes must not be empty"})");
  mint(user, R"({"name":"","scopes":["messages:read"]})", &r);
  EXPECT_EQ(r.status, 400);
  mint(user, R"({"name":"n","scopes":["messages:read"],"expires_in_days":0})", &r);
  EXPECT_EQ(r.body, R"({"error":"invalid expires_in_days: must be 1–365"})");
  mint(user, R"({"name":"n","scopes":["messages:read"],"channel_ids":["not-a-uuid"]})", &r);
  EXPECT_EQ(r.body, R"({"error":"invalid_channel_ids","message":"malformed UUID: not-a-uuid"})");
  mint(user, R"({"name":"n","scopes":"messages:read"})", &r);
  EXPECT_EQ(r.status, 400);
  mint(user, "not json", &r);
  EXPECT_EQ(r.status, 400);
}

TEST_F(ApiWriteTest, ChildTokensCannotEscalate) {
  Keypair user = engine::generate_keypair();
  const std::string ch = channel(user, "b2", "open");
  std::string parent = mint(user, R"({"name":"p","scopes":["messages:read","channels:read"],"channel_ids":[")" + ch + R"("]})");
  ASSERT_FALSE(parent.empty());
  HttpReply r = bearer_call(parent, "POST", "/api/tokens", R"({"name":"c","scopes":["messages:write"],"channel_ids":[")" + ch + R"("]})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"error":"scope_escalation","message":"Cannot mint scope 'messages:write' — not in your token's scopes"})");
  r = bearer_call(parent, "POST", "/api/tokens", R"({"name":"c","scopes":["messages:read"]})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(body_field(r.body, "error"), "channel_escalation");
  r = bearer_call(parent, "POST", "/api/tokens", R"({"name":"c","scopes":["messages:read"],"channel_ids":[")" + ch + R"("]})");
  EXPECT_EQ(r.status, 201) << r.body;
}

TEST_F(ApiWriteTest, ScopesAreEnforcedPerEndpointAndPerKind) {
  Keypair user = engine::generate_keypair();
  std::string reader = mint(user, R"({"name":"r","scopes":["messages:read"]})");
  ASSERT_FALSE(reader.empty());
  HttpReply channels = bearer_call(reader, "GET", "/api/channels");
  EXPECT_EQ(channels.status, 403);
  EXPECT_EQ(channels.body, R"({"error":"insufficient_scope","message":"token missing required scope: channels:read"})");
  HttpReply post = bearer_call(reader, "POST", "/api/events", make_event(user, 1, "hi").raw);
  EXPECT_EQ(post.status, 403);
  EXPECT_EQ(post.body, R"j({"error":"restricted: insufficient scope (need messages:write)"})j");

  std::string writer = mint(user, R"({"name":"w","scopes":["messages:write"]})");
  HttpReply ok = bearer_call(writer, "POST", "/api/events", make_event(user, 1, "with a token").raw);
  EXPECT_EQ(ok.status, 200) << ok.body;
}

TEST_F(ApiWriteTest, ChannelRestrictedTokensStayInTheirChannels) {
  Keypair user = engine::generate_keypair();
  const std::string mine = channel(user, "b3", "open"), other = channel(user, "b4", "open");
  std::string token = mint(user, R"({"name":"one","scopes":["messages:write","channels:read"],"channel_ids":[")" + mine + R"("]})");
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(bearer_call(token, "GET", "/api/channels/" + mine).status, 200);
  HttpReply denied = bearer_call(token, "GET", "/api/channels/" + other);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body, R"({"error":"channel_not_permitted","message":"Token does not have access to this channel"})");
  HttpReply list = bearer_call(token, "GET", "/api/channels");
  EXPECT_NE(list.body.find(mine), std::string::npos);
  EXPECT_EQ(list.body.find(other), std::string::npos);

  EXPECT_EQ(bearer_call(token, "POST", "/api/events", make_event(user, 9, "in", {{"h", mine}}).raw).status, 200);
  HttpReply elsewhere = bearer_call(token, "POST", "/api/events", make_event(user, 9, "out", {{"h", other}}).raw);
  EXPECT_EQ(elsewhere.status, 403);
  EXPECT_EQ(elsewhere.body, R"({"error":"restricted: token does not have access to this channel"})");
  HttpReply global = bearer_call(token, "POST", "/api/events", make_event(user, 1, "global").raw);
  EXPECT_EQ(global.status, 403);
  EXPECT_EQ(global.body, R"({"error":"restricted: channel-scoped tokens cannot publish global events"})");
  // A reaction to an event beyond the token's channels answers as one to a missing event (docs/access.md).
  Event there = make_event(user, 9, "there", {{"h", other}});
  ASSERT_EQ(post_event(user, there).status, 200);
  HttpReply beyond = bearer_call(token, "POST", "/api/events", make_event(user, 7, "+", {{"e", there.id_hex()}}).raw);
  HttpReply nowhere = bearer_call(token, "POST", "/api/events", make_event(user, 7, "+", {{"e", std::string(64, '9')}}).raw);
  EXPECT_EQ(beyond.status, nowhere.status);
  EXPECT_EQ(beyond.body, nowhere.body);
}

TEST_F(ApiWriteTest, RevokedTokensStopWorking) {
  Keypair user = engine::generate_keypair();
  HttpReply minted;
  std::string token = mint(user, R"({"name":"short","scopes":["channels:read"]})", &minted);
  std::string keeper = mint(user, R"({"name":"keeper","scopes":["channels:read"]})");
  ASSERT_FALSE(token.empty());
  const std::string id = body_field(minted.body, "id");
  EXPECT_EQ(bearer_call(keeper, "DELETE", "/api/tokens/" + id).status, 204);
  EXPECT_EQ(bearer_call(token, "GET", "/api/channels").body, R"({"error":"token_revoked"})");
  EXPECT_EQ(bearer_call(keeper, "DELETE", "/api/tokens/" + id).status, 409);
  EXPECT_EQ(bearer_call(keeper, "DELETE", "/api/tokens/00000000-0000-4000-8000-000000000000").status, 404);
  EXPECT_EQ(signed_call(user, "DELETE", "/api/tokens/" + id).status, 409);  // signed by the key too (docs/access.md)

  HttpReply all = bearer_call(keeper, "DELETE", "/api/tokens");
  EXPECT_EQ(all.status, 200);
  EXPECT_EQ(all.body, R"({"revoked_count":1})");
  EXPECT_EQ(bearer_call(keeper, "GET", "/api/channels").body, R"({"error":"token_revoked"})");
}

TEST_F(ApiWriteTest, ActiveTokenLimitThenMintRateLimit) {
  Keypair user = engine::generate_keypair();
  const std::string body = R"({"name":"n","scopes":["messages:read"]})";
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(mint(user, body).empty()) << i;
  HttpReply r;
  mint(user, body, &r);
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.body, R"({"error":"token_limit_exceeded","message":"Maximum of 10 active tokens per pubkey"})");
  mint(user, body, &r);  // the 12th attempt this hour still counts
  EXPECT_EQ(r.status, 409);
  mint(user, body, &r);
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(body_field(r.body, "error"), "rate_limited");
}

TEST_F(ApiWriteTest, TokenInAWebSocketAuthNarrowsTheSession) {
  Keypair user = engine::generate_keypair(), stranger = engine::generate_keypair();
  std::string token = mint(user, R"({"name":"ws","scopes":["messages:read"]})");
  ASSERT_FALSE(token.empty());
  std::string error;
  auto with_token = [&](const Keypair& key, const std::string& t) {
    auto c = NostrClient::connect(*relay_, &error);
    Event auth = client::auth_event(key, c->relay_url(), c->challenge(), t);
    return std::pair(std::move(c), auth);
  };
  auto [c, auth] = with_token(user, token);
  ASSERT_TRUE(c->send_auth(auth).accepted);
  OkReply refused = c->publish(make_event(user, 1, "read-only token"));
  EXPECT_FALSE(refused.accepted);
  EXPECT_EQ(refused.reason, "restricted: insufficient scope (need messages:write)");
  // Ephemeral events check the scope before the signature (docs/reference/protocol.md §12).
  Event typing = with_bad_signature(make_event(user, 20002, "", {{"h", "00000000-0000-4000-8000-000000000001"}}));
  EXPECT_EQ(c->publish(typing).reason, "restricted: insufficient scope for ephemeral events");

  auto [c2, auth2] = with_token(stranger, token);  // someone else's token
  OkReply wrong_owner = c2->send_auth(auth2);
  EXPECT_FALSE(wrong_owner.accepted);
  EXPECT_EQ(wrong_owner.reason, "auth-required: verification failed");
  auto [c3, auth3] = with_token(user, "buzz_" + std::string(64, '0'));
  EXPECT_EQ(c3->send_auth(auth3).reason, "auth-required: invalid token");
}

// `buzz admin mint-token` works offline on the data directory and may grant
// what self-service minting may not; the server then honours the token.
TEST(AdminTokenTest, OperatorMintedTokenWorksAfterStart) {
  const ScratchDir scratch("admin-token");
  const std::string dir = scratch / "data";
  Keypair ops = engine::generate_keypair();
  int status = -1;
  std::string out = run_buzz("admin mint-token --data-dir " + dir + " --pubkey " + hex(ops) +
                                 " --name ops --scopes channels:read,admin:channels --json",
                             &status);
  ASSERT_EQ(status, 0) << out;
  const std::string token = body_field(out, "token");
  ASSERT_EQ(token.size(), 69u) << out;
  {
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, dir}, &error);
    ASSERT_NE(relay, nullptr) << error;
    HttpReply r = http_call(relay->port(), "GET", "/api/channels", {{"Authorization", "Bearer " + token}});
    EXPECT_EQ(r.status, 200) << r.body;
    HttpReply scoped = http_call(relay->port(), "GET", "/api/feed", {{"Authorization", "Bearer " + token}});
    EXPECT_EQ(scoped.status, 403) << "the token holds only what the operator granted";
  }
}

// A relay configured for one browser origin answers that origin only, on
// immediate and deferred (POST /api/events) answers alike.
TEST(ApiCorsTest, ConfiguredOriginsOnly) {
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open"}, {{"BUZZ_CORS_ORIGINS", "https://app.example"}}, ""}, &error);
  ASSERT_NE(relay, nullptr) << error;
  Keypair author = engine::generate_keypair();
  const std::string url = "http://127.0.0.1:" + std::to_string(relay->port()) + "/api/events";
  auto post = [&](const std::string& origin) {
    Event note = make_event(author, 1, "cors " + origin);
    return http_call(relay->port(), "POST", "/api/events",
                     {{"Authorization", nip98_header(author, url, "POST", note.raw)}, {"Origin", origin}}, note.raw);
  };
  HttpReply allowed = post("https://app.example");
  EXPECT_EQ(allowed.status, 200) << allowed.body;
  EXPECT_EQ(allowed.headers["access-control-allow-origin"], "https://app.example");
  HttpReply other = post("https://evil.example");
  EXPECT_EQ(other.status, 200);
  EXPECT_EQ(other.headers.count("access-control-allow-origin"), 0u);
  HttpReply preflight = http_call(relay->port(), "OPTIONS", "/api/events", {{"Origin", "https://app.example"}});
  EXPECT_EQ(preflight.status, 204);
  EXPECT_NE(preflight.headers["access-control-allow-headers"].find("Authorization"), std::string::npos);
  EXPECT_EQ(http_call(relay->port(), "OPTIONS", "/api/events", {{"Origin", "https://evil.example"}}).headers.count(
                "access-control-allow-methods"),
            0u);
}

}  // namespace
}  // namespace buzz::test
