// The agent CLI's bad inputs (docs/reference/agents-and-cli.md §B.1): each gets one JSON line
// on stderr with the spec's category, message and exit code, and nothing on
// stdout. A relay that is down is a free port; a 5xx comes from an
// HttpReceiver standing in for the relay, which also shows the exact request
// bytes the CLI sends (headers, query encoding, the mint body).
#include "engine/nip19.h"
#include "engine/signature.h"
#include "tests/e2e/cli_fixture.h"
#include "tests/e2e/http_receiver.h"

namespace buzz::test {


class CliErrorsTest : public CliFixture<CliErrorsTest> {};

namespace {

void expect_error(const CliRun& r, int status, const std::string& category, const std::string& message) {
  EXPECT_EQ(r.status, status) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "{\"error\":\"" + category + "\",\"message\":" + json_quote(message) + "}\n");
}

const std::string kChannel = "0b1e8c54-5a3f-4e0f-9d7c-2a6f0c1b9e11";
const std::string kHex(64, 'a');

}  // namespace

TEST_F(CliErrorsTest, MalformedPrivateKeyIsAKeyError) {
  expect_error(run_cli({"list-channels"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_PRIVATE_KEY", "not-a-key"}}), 3,
               "key_error", "invalid private key: expected 64 hex characters or nsec1…");
  std::string nsec = engine::encode_nsec(engine::generate_keypair().secret);
  nsec[10] = nsec[10] == 'q' ? 'p' : 'q';  // the checksum no longer holds
  expect_error(run_cli({"list-channels"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_PRIVATE_KEY", nsec}}), 3, "key_error",
               "invalid private key: expected 64 hex characters or nsec1…");
  expect_error(run_cli({"auth", "--private-key", std::string(64, '0')}, {{"BUZZ_RELAY_URL", relay_env()}}), 3, "key_error",
               "invalid private key: not a valid secp256k1 secret");
}

// The harness hands agents their key as an nsec (docs/reference/agents-and-cli.md §A.6.2).
TEST_F(CliErrorsTest, PrivateKeyAsNsecWorksAsHexDoes) {
  const engine::Keypair key = engine::generate_keypair();
  CliRun minted = run_cli({"auth"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_PRIVATE_KEY", engine::encode_nsec(key.secret)}});
  EXPECT_EQ(minted.status, 0) << minted.err;
  EXPECT_NE(minted.out.find("buzz_"), std::string::npos) << minted.out;
}

TEST_F(CliErrorsTest, UsageErrorsAreUserErrors) {
  CliUser u = new_user();
  expect_error(cli(u, {"send-message", "--channel", kChannel, "--content", "x", "--bogus", "1"}), 1, "user_error",
               "unexpected argument '--bogus' found");
  expect_error(cli(u, {"send-message", "--channel", kChannel}), 1, "user_error",
               "the following required arguments were not provided:\n  --content <CONTENT>");
  expect_error(cli(u, {"send-message", "--channel"}), 1, "user_error",
               "a value is required for '--channel <CHANNEL>' but none was supplied");
  expect_error(cli(u, {"get-channel", "--channel", kChannel, "--channel", kChannel}), 1, "user_error",
               "the argument '--channel' cannot be used multiple times");
  expect_error(cli(u, {"list-channels", "stray"}), 1, "user_error", "unexpected argument 'stray' found");
}

// The validation messages of §B.1 and §B.2, word for word.
TEST_F(CliErrorsTest, ValidationMessages) {
  CliUser u = new_user();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"get-channel", "--channel", "nope"}, "invalid UUID: nope"},
      {{"get-reactions", "--event", "abc"}, "must be a 64-character hex string: abc"},
      {{"send-message", "--channel", kChannel, "--content", std::string(65537, 'x')},
       "content exceeds maximum size (65537 > 65536 bytes)"},
      {{"vote-on-post", "--event", kHex, "--direction", "sideways"}, "--direction must be 'up' or 'down' (got: sideways)"},
      {{"approve-step", "--token", kChannel, "--approved", "yes"}, "--approved must be 'true' or 'false' (got: yes)"},
      {{"send-diff-message", "--channel", kChannel, "--diff", "d", "--repo", "https://r", "--commit", "abcdef1",
        "--source-branch", "feat"},
       "--source-branch and --target-branch must both be provided or both omitted"},
      {{"send-diff-message", "--channel", kChannel, "--diff", "d", "--repo", "ftp://r", "--commit", "abcdef1"},
       "--repo must start with http:// or https://: ftp://r"},
      {{"open-dm", "--pubkey", kHex, "--pubkey", kHex, "--pubkey", kHex, "--pubkey", kHex, "--pubkey", kHex, "--pubkey",
        kHex, "--pubkey", kHex, "--pubkey", kHex, "--pubkey", kHex},
       "--pubkey: must provide 1\xE2\x80\x93" "8 pubkeys"},
      {{"update-channel", "--channel", kChannel}, "at least one of --name or --description must be provided"},
      {{"list-channels", "--visibility", "secret"}, "invalid value 'secret' for '--visibility' [possible values: open, private]"},
      {{"get-messages", "--channel", kChannel, "--limit", "ten"},
       "invalid value 'ten' for '--limit': expected a non-negative integer"},
  };
  for (const auto& [args, message] : cases) {
    SCOPED_TRACE(args[0]);
    expect_error(cli(u, args), 1, "user_error", message);
  }
}

// Global flags go before or after the command and win over the environment.
TEST_F(CliErrorsTest, GlobalFlagsBeforeOrAfterTheCommand) {
  CliUser u = new_user();
  const std::string down = "http://127.0.0.1:" + std::to_string(free_tcp_port());
  const std::vector<std::pair<std::string, std::string>> wrong_env = {{"BUZZ_RELAY_URL", down}, {"BUZZ_API_TOKEN", "buzz_nope"}};
  EXPECT_EQ(run_cli({"--relay", relay_env(), "--token=" + u.token, "list-channels"}, wrong_env).status, 0);
  EXPECT_EQ(run_cli({"list-channels", "--relay=" + relay_env(), "--token", u.token}, wrong_env).status, 0);
  expect_error(run_cli({"--relay"}), 1, "user_error", "a value is required for '--relay <URL>' but none was supplied");
}

TEST_F(CliErrorsTest, MissingAuthAndMissingKey) {
  expect_error(run_cli({"list-channels"}, {{"BUZZ_RELAY_URL", relay_env()}}), 3, "auth_error",
               "Set BUZZ_API_TOKEN, BUZZ_PRIVATE_KEY, or BUZZ_PUBKEY");
  CliUser u = new_user();
  // A token reads, but a write needs the key that signs it.
  EXPECT_EQ(run_cli({"list-channels"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_API_TOKEN", u.token}}).status, 0);
  expect_error(run_cli({"send-message", "--channel", kChannel, "--content", "x"},
                       {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_API_TOKEN", u.token}}),
               3, "key_error", "private key required for write operations (set BUZZ_PRIVATE_KEY)");
}

TEST_F(CliErrorsTest, RelayDownIsANetworkError) {
  const std::string down = "http://127.0.0.1:" + std::to_string(free_tcp_port());
  CliRun r = run_cli({"list-channels", "--relay", down, "--token", "buzz_x"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(json_str(r.err, "error"), "network_error") << r.err;
  EXPECT_TRUE(json_str(r.err, "message").starts_with("request to " + down + "/api/channels?member=false failed: ")) << r.err;
}

TEST_F(CliErrorsTest, UnauthorizedIsAnAuthError) {
  expect_error(run_cli({"list-channels"}, {{"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_API_TOKEN", "buzz_not_a_token"}}), 3,
               "auth_error", "relay error 401: invalid_token");
  // Dev mode: X-Pubkey, which this relay refuses (every REST identity here is proven).
  expect_error(run_cli({"list-channels", "--pubkey", kHex}, {{"BUZZ_RELAY_URL", relay_env()}}), 3, "auth_error",
               "relay error 401: authentication required");
}

TEST_F(CliErrorsTest, ServerErrorIsARelayError) {
  HttpReceiver fake;
  fake.respond(503, R"({"error":"overloaded, retry"})");
  const std::vector<std::pair<std::string, std::string>> env = {{"BUZZ_RELAY_URL", fake.url("")}, {"BUZZ_API_TOKEN", "buzz_t"}};
  expect_error(run_cli({"get-feed"}, env), 2, "relay_error", "relay error 503: overloaded, retry");
  fake.respond(500, "plain failure");
  expect_error(run_cli({"get-feed"}, env), 2, "relay_error", "relay error 500: plain failure");
}

// What goes on the wire: the auth headers, the query encoding, the mint body.
TEST_F(CliErrorsTest, RequestsOnTheWire) {
  HttpReceiver fake;
  fake.respond(200, R"({"hits":[]})");
  CliRun searched = run_cli({"search", "--query", "a b&c/\xC3\xA9~", "--limit", "500"},
                            {{"BUZZ_RELAY_URL", "ws://127.0.0.1:" + std::to_string(fake.port()) + "/"}, {"BUZZ_PUBKEY", kHex}});
  EXPECT_EQ(searched.status, 0) << searched.err;
  EXPECT_EQ(searched.out, "{\"hits\":[]}\n");
  ASSERT_TRUE(fake.wait_for(1));
  ReceivedRequest r = fake.received()[0];
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.target, "/api/search?q=a%20b%26c%2F%C3%A9~&limit=100");
  EXPECT_NE(r.head.find("X-Pubkey: " + kHex), std::string::npos) << r.head;

  // Auto-mint: a NIP-98 POST /api/tokens with the §B.3 body, the call with the
  // minted token, then that token's revocation.
  fake.respond(201, R"({"token":"buzz_minted","id":")" + kChannel + R"("})");
  engine::Keypair key = engine::generate_keypair();
  CliRun listed = run_cli({"list-tokens"}, {{"BUZZ_RELAY_URL", fake.url("")}, {"BUZZ_PRIVATE_KEY", engine::to_hex(key.secret)}});
  EXPECT_EQ(listed.status, 0) << listed.err;
  ASSERT_TRUE(fake.wait_for(4));
  ReceivedRequest mint = fake.received()[1], call = fake.received()[2], revoke = fake.received()[3];
  EXPECT_EQ(mint.method + " " + mint.target, "POST /api/tokens");
  EXPECT_EQ(mint.body,
            R"({"name":"buzz-cli-auto","scopes":["messages:read","messages:write","channels:read","channels:write",)"
            R"("users:read","users:write","files:read","files:write"],"expires_in_days":1})");
  EXPECT_NE(mint.head.find("X-Forwarded-Proto: http\r\n"), std::string::npos) << mint.head;
  EXPECT_NE(mint.head.find("Authorization: Nostr "), std::string::npos) << mint.head;
  EXPECT_EQ(call.method + " " + call.target, "GET /api/tokens");
  EXPECT_NE(call.head.find("Authorization: Bearer buzz_minted"), std::string::npos) << call.head;
  EXPECT_EQ(revoke.method + " " + revoke.target, "DELETE /api/tokens/" + kChannel);
  EXPECT_NE(revoke.head.find("Authorization: Bearer buzz_minted"), std::string::npos) << revoke.head;

  // approve-step: grant or deny by the flag, with the note.
  fake.respond(200, "{}");
  EXPECT_EQ(run_cli({"approve-step", "--token", kChannel, "--approved", "false", "--note", "not now"},
                    {{"BUZZ_RELAY_URL", fake.url("")}, {"BUZZ_API_TOKEN", "buzz_t"}})
                .status,
            0);
  ASSERT_TRUE(fake.wait_for(5));
  ReceivedRequest deny = fake.received()[4];
  EXPECT_EQ(deny.method + " " + deny.target, "POST /api/approvals/" + kChannel + "/deny");
  EXPECT_EQ(deny.body, R"({"note":"not now"})");

  // A failed mint is an auth error with the relay's status and body.
  fake.respond(403, R"({"error":"relay_membership_required"})");
  expect_error(run_cli({"list-tokens"}, {{"BUZZ_RELAY_URL", fake.url("")}, {"BUZZ_PRIVATE_KEY", engine::to_hex(key.secret)}}), 3,
               "auth_error", R"(auto-mint failed (403): {"error":"relay_membership_required"})");
}

}  // namespace buzz::test
