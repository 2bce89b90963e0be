// The original's development authentication (docs/reference/rest-api.md §1.4): an
// unsigned X-Pubkey header names the caller on the HTTP bridge and REST only
// when BUZZ_REQUIRE_AUTH_TOKEN=false is set explicitly and the relay listens
// on loopback. Denied cases first: unset or true, the header is refused and
// the browser's preflight does not allow it; false on a non-loopback bind
// refuses to start.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"

namespace buzz::test {
namespace {

std::unique_ptr<RelayProcess> start_dev_auth(std::vector<std::pair<std::string, std::string>> env) {
  RelayOptions opts;
  opts.extra_args = {"--open"};
  opts.env = std::move(env);
  std::string error;
  auto relay = RelayProcess::start(opts, &error);
  EXPECT_TRUE(relay) << error;
  return relay;
}

HttpReply query_as(const RelayProcess& relay, const std::string& pubkey) {
  return http_call(relay.port(), "POST", "/query", {{"X-Pubkey", pubkey}, {"Content-Type", "application/json"}},
                   R"([{"kinds":[1],"limit":1}])");
}

HttpReply rest_as(const RelayProcess& relay, const std::string& pubkey) {
  return http_call(relay.port(), "GET", "/api/users/me/profile", {{"X-Pubkey", pubkey}});
}

std::string preflight_headers(const RelayProcess& relay) {
  HttpReply r = http_call(relay.port(), "OPTIONS", "/query",
                          {{"Origin", "http://localhost:1420"}, {"Access-Control-Request-Method", "POST"},
                           {"Access-Control-Request-Headers", "x-pubkey, content-type"}});
  EXPECT_EQ(r.status, 204);
  return r.headers["access-control-allow-headers"];
}

TEST(DevPubkeyAuth, UnsetOrTrueRefusesTheHeaderAndItsPreflight) {
  const std::string someone = hex(engine::generate_keypair());
  for (auto env : {std::vector<std::pair<std::string, std::string>>{},
                   std::vector<std::pair<std::string, std::string>>{{"BUZZ_REQUIRE_AUTH_TOKEN", "true"}}}) {
    auto relay = start_dev_auth(env);
    ASSERT_TRUE(relay);
    EXPECT_EQ(query_as(*relay, someone).status, 401);
    EXPECT_EQ(rest_as(*relay, someone).status, 401);
    const std::string allowed = preflight_headers(*relay);
    EXPECT_NE(allowed.find("Authorization"), std::string::npos);
    EXPECT_EQ(allowed.find("X-Pubkey"), std::string::npos) << allowed;
    EXPECT_EQ(relay->stderr_text().find("DEVELOPMENT AUTHENTICATION"), std::string::npos);
  }
}

TEST(DevPubkeyAuth, FalseOnANonLoopbackBindRefusesToStart) {
  const ScratchDir dir("dev-auth");
  for (const std::string& how : {std::string("--require-auth-token false"), std::string("")}) {
    if (how.empty()) setenv("BUZZ_REQUIRE_AUTH_TOKEN", "false", 1);  // the child inherits it
    int status = -1;
    const std::string out = run_buzz("serve --data-dir " + dir.path() + " --open --bind 0.0.0.0:0 " + how, &status);
    unsetenv("BUZZ_REQUIRE_AUTH_TOKEN");
    EXPECT_EQ(status, 2) << out;
    EXPECT_NE(out.find("loopback"), std::string::npos) << out;
    EXPECT_NE(out.find("X-Pubkey"), std::string::npos) << out;
  }
}

TEST(DevPubkeyAuth, FalseOnLoopbackTakesTheHeaderOnTheBridgeAndRestAndSaysSo) {
  auto relay = start_dev_auth({{"BUZZ_REQUIRE_AUTH_TOKEN", "false"}});
  ASSERT_TRUE(relay);
  const std::string someone = hex(engine::generate_keypair());
  // Logged just after "listening": the relay may answer before the line is written.
  bool warned = false;
  for (int i = 0; i < 100 && !warned; ++i) {
    warned = relay->stderr_text().find("DEVELOPMENT AUTHENTICATION ON") != std::string::npos;
    if (!warned) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(warned) << relay->stderr_text();
  HttpReply q = query_as(*relay, someone);
  EXPECT_EQ(q.status, 200) << q.body;
  HttpReply me = rest_as(*relay, someone);
  EXPECT_EQ(me.status, 200) << me.body;
  EXPECT_NE(me.body.find(someone), std::string::npos) << me.body;
  EXPECT_EQ(query_as(*relay, "not-a-pubkey").status, 401);
  EXPECT_NE(preflight_headers(*relay).find("X-Pubkey"), std::string::npos);
  // Each use is in the log, naming the pubkey it was taken for.
  EXPECT_NE(relay->stderr_text().find(someone), std::string::npos);
  // A signed request still wins over the header: the header is only read without Authorization.
  HttpReply minted = http_call(relay->port(), "POST", "/api/tokens", {{"X-Pubkey", someone}}, R"({"name":"x","scopes":[]})");
  EXPECT_EQ(minted.status, 401) << "minting a token needs NIP-98, never the header";
  // Nor are someone's tokens listed or revoked for an unsigned header naming them.
  HttpReply listed = http_call(relay->port(), "GET", "/api/tokens", {{"X-Pubkey", someone}});
  EXPECT_EQ(listed.status, 401);
  EXPECT_EQ(listed.body, R"({"error":"Bearer token required to list tokens"})");
  for (const char* path : {"/api/tokens", "/api/tokens/00000000-0000-4000-8000-000000000000"}) {
    HttpReply revoked = http_call(relay->port(), "DELETE", path, {{"X-Pubkey", someone}});
    EXPECT_EQ(revoked.status, 401) << path;
    EXPECT_EQ(revoked.body, R"({"error":"Bearer token required to revoke tokens"})") << path;
  }
}

}  // namespace
}  // namespace buzz::test
