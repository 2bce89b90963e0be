// Unit tests for server/blossom_auth (docs/reference/media.md §2.2): a well-formed kind-24242
// upload authorization passes in both base64 forms, and each check in the
// spec's order has its refused case with its internal reason — header,
// scheme, base64, JSON, signature, kind, content, t verb, expiration, the
// created_at window, server tags, X-SHA-256 and the x tags, the body hash —
// plus the server authority derived from RELAY_URL.
#include "server/access/blossom_auth.h"

#include <gtest/gtest.h>

#include "engine/signature.h"
#include "engine/base64.h"

namespace buzz::server {
namespace {

constexpr uint64_t kNow = 1'800'000'000;
const std::string kAuthority = "localhost:3000";
const std::string kSha = std::string(64, 'a');
const std::string kBodySha = std::string(64, 'b');

std::string base64(std::string_view in, bool url_safe) {
  return url_safe ? engine::encode_base64url_unpadded(in) : engine::encode_base64(in);
}

struct AuthEvent {
  uint16_t kind = kind::kBlossomAuth;
  std::string content = "Upload file";
  uint64_t created_at = kNow - 10;
  std::vector<engine::Tag> tags = {{"t", "upload"}, {"x", kSha}, {"expiration", std::to_string(kNow + 600)}};
};

engine::Event sign(const AuthEvent& a) {
  return engine::signed_event(engine::generate_keypair(), a.kind, a.created_at, a.tags, a.content);
}

std::string header(const engine::Event& e, bool url_safe = true) { return "Nostr " + base64(e.raw, url_safe); }

engine::Result<engine::Pubkey> verify(const std::string& authorization, std::string_view declared = kSha,
                                      std::string_view body = "", uint64_t max_age = kBlossomMaxAgeBeforeBody) {
  return verify_blossom_upload({authorization, declared, body}, kAuthority, kNow, max_age);
}

std::string reason(const engine::Result<engine::Pubkey>& r) { return r.ok() ? "<ok>" : r.error(); }

std::string refusal_of(AuthEvent a) { return reason(verify(header(sign(a)))); }

// The default event with one change: event([](AuthEvent& a) { a.kind = 1; }).
template <class Change>
AuthEvent event(Change change) {
  AuthEvent a;
  change(a);
  return a;
}

TEST(BlossomAuth, AcceptsBothBase64Forms) {
  engine::Event e = sign(AuthEvent{});
  auto url_safe = verify(header(e, true));
  ASSERT_TRUE(url_safe.ok()) << url_safe.error();
  EXPECT_EQ(*url_safe, e.pubkey);
  auto standard = verify(header(e, false));
  ASSERT_TRUE(standard.ok()) << standard.error();
  EXPECT_EQ(*standard, e.pubkey);
}

TEST(BlossomAuth, HeaderSchemeAndEncoding) {
  engine::Event e = sign(AuthEvent{});
  EXPECT_EQ(reason(verify("")), "missing authorization header");
  EXPECT_EQ(reason(verify("nostr " + base64(e.raw, true))), "invalid authorization scheme");
  EXPECT_EQ(reason(verify("Nostr  " + base64(e.raw, true))), "invalid base64 encoding");
  EXPECT_EQ(reason(verify("Bearer abc")), "invalid authorization scheme");
  EXPECT_EQ(reason(verify("Nostr !!!")), "invalid base64 encoding");
  std::string padded_url_safe = base64(e.raw, true);
  padded_url_safe.append((4 - padded_url_safe.size() % 4) % 4, '=');
  if (padded_url_safe.find_first_of("-_") != std::string::npos && padded_url_safe.back() == '=') {
    EXPECT_EQ(reason(verify("Nostr " + padded_url_safe)), "invalid base64 encoding");  // neither form
  }
  EXPECT_EQ(reason(verify("Nostr " + base64("{not json", true))), "invalid auth event");
}

TEST(BlossomAuth, SignatureThenKindThenContent) {
  engine::Event e = sign(AuthEvent{});
  std::string tampered = e.raw;
  tampered.replace(tampered.find("Upload file"), 11, "Upload fila");
  EXPECT_EQ(reason(verify("Nostr " + base64(tampered, true))), "invalid signature");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.kind = 27235; })), "invalid auth event kind");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.content = " \n\t"; })), "invalid auth event");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.content = ""; })), "invalid auth event");
}

TEST(BlossomAuth, VerbTag) {
  std::string exp = std::to_string(kNow + 600);
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.tags = {{"x", kSha}, {"expiration", exp}}; })), "missing required tag: t");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.tags = {{"t"}, {"x", kSha}, {"expiration", exp}}; })), "missing required tag: t");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.tags = {{"t", "delete"}, {"x", kSha}, {"expiration", exp}}; })), "invalid auth verb");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.tags = {{"t", "upload"}, {"t", "list"}, {"x", kSha}, {"expiration", exp}}; })),
            "invalid auth verb");
}

TEST(BlossomAuth, ExpirationAndWindow) {
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.tags = {{"t", "upload"}, {"x", kSha}}; })), "missing required tag: expiration");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.tags = {{"t", "upload"}, {"x", kSha}, {"expiration", std::to_string(kNow)}}; })),
            "token expired");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.tags = {{"t", "upload"}, {"x", kSha}, {"expiration", "soon"}}; })), "token expired");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.created_at = kNow + 5; })), "<ok>");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.created_at = kNow + 6; })), "timestamp out of window");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.created_at = kNow - 3600; })), "<ok>");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.created_at = kNow - 3601; })), "timestamp out of window");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.created_at = (uint64_t(1) << 63) + kNow; })), "timestamp out of window");
  EXPECT_EQ(refusal_of(event([&](AuthEvent& a) { a.created_at = UINT64_MAX; })), "timestamp out of window");
  // Twenty minutes old: fine before the body, too old for an image after it.
  engine::Event e = sign(event([](AuthEvent& a) { a.created_at = kNow - 1200; }));
  EXPECT_TRUE(verify(header(e), kSha, "", kBlossomMaxAgeBeforeBody).ok());
  EXPECT_EQ(reason(verify(header(e), kSha, kSha, kBlossomMaxAgeImage)), "timestamp out of window");
}

TEST(BlossomAuth, ServerTags) {
  std::string exp = std::to_string(kNow + 600);
  auto with_servers = [&](std::vector<std::string> servers) {
    AuthEvent a;
    for (auto& s : servers) a.tags.push_back({"server", s});
    return a;
  };
  EXPECT_EQ(refusal_of(with_servers({kAuthority})), "<ok>");
  EXPECT_EQ(refusal_of(with_servers({"other.example", kAuthority})), "<ok>");
  EXPECT_EQ(refusal_of(with_servers({"other.example"})), "server mismatch");
  EXPECT_EQ(refusal_of(with_servers({"LOCALHOST:3000"})), "server mismatch");  // exactly
  // Without a configured authority every server tag fails closed.
  engine::Event e = sign(with_servers({kAuthority}));
  EXPECT_EQ(reason(verify_blossom_upload({header(e), kSha, ""}, "", kNow, 3600)), "server mismatch");
  EXPECT_TRUE(verify_blossom_upload({header(sign(AuthEvent{})), kSha, ""}, "", kNow, 3600).ok());
}

TEST(BlossomAuth, DeclaredAndBodyHashes) {
  std::string h = header(sign(AuthEvent{}));
  EXPECT_EQ(reason(verify(h, "")), "missing required tag: x-sha-256");
  EXPECT_EQ(reason(verify(h, std::string(64, 'A'))), "hash mismatch");  // uppercase
  EXPECT_EQ(reason(verify(h, std::string(63, 'a'))), "hash mismatch");
  EXPECT_EQ(reason(verify(h, kBodySha)), "hash mismatch");  // not an x tag
  EXPECT_EQ(reason(verify(h, kSha, kSha)), "<ok>");
  EXPECT_EQ(reason(verify(h, kSha, kBodySha)), "hash mismatch");  // the body is not what was signed
  // Any x tag may carry the hash.
  AuthEvent two;
  two.tags.push_back({"x", kBodySha});
  EXPECT_EQ(reason(verify(header(sign(two)), kBodySha, kBodySha)), "<ok>");
}

TEST(BlossomAuth, ServerAuthority) {
  EXPECT_EQ(blossom_server_authority("", "ws://localhost:3000"), "localhost:3000");
  EXPECT_EQ(blossom_server_authority("", "wss://relay.example.com"), "relay.example.com");
  EXPECT_EQ(blossom_server_authority("", "wss://Relay.Example.com:443/path"), "relay.example.com");
  EXPECT_EQ(blossom_server_authority("", "ws://relay.example.com:80"), "relay.example.com");
  EXPECT_EQ(blossom_server_authority("", "wss://relay.example.com:8443"), "relay.example.com:8443");
  EXPECT_EQ(blossom_server_authority("", "ws://[::1]:3000"), "[::1]:3000");
  EXPECT_EQ(blossom_server_authority("media.example.com", "ws://localhost:3000"), "media.example.com");
  EXPECT_EQ(blossom_server_authority("", "http://x"), "");
}

}  // namespace
}  // namespace buzz::server
