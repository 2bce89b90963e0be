// The agent CLI's HTTP and what a command loads (docs/performance.md, CLI
// start-up): `buzz version` and help map no libcrypto, libsecp256k1, libxxhash
// or libcurl; an http:// relay is spoken to with the project's own HTTP/1.1
// client (tools/client/http_client.h), so a loopback send loads libsecp256k1
// to sign, but neither libcurl nor libcrypto (the front hashes with its own
// SHA-256); libcurl still serves a proxied request. The dynamic
// loader itself says what it opened (LD_DEBUG=files, on stderr).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "tests/e2e/cli_fixture.h"
#include "tests/e2e/http_receiver.h"

namespace buzz::test {

class CliHttpTest : public CliFixture<CliHttpTest> {};

namespace {

// Whether the run's loader opened a file whose name starts with `library`.
bool loaded(const CliRun& r, const std::string& library) { return r.err.find("file=" + library) != std::string::npos; }

const std::vector<std::string> kNotForVersion = {"libcrypto", "libssl", "libsecp256k1", "libxxhash", "libcurl"};

}  // namespace

TEST_F(CliHttpTest, VersionAndHelpLoadNoCryptoNorCurl) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"version"}, {"help"}}) {
    SCOPED_TRACE(args[0]);
    CliRun r = run_cli(args, {{"LD_DEBUG", "files"}});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(loaded(r, "libc.so")) << "LD_DEBUG said nothing: " << r.err;
    for (const std::string& library : kNotForVersion) EXPECT_FALSE(loaded(r, library)) << library << "\n" << r.err;
  }
}

TEST_F(CliHttpTest, LoopbackSendSignsWithoutCurlOrCrypto) {
  CliUser u = new_user();
  const std::string ch = new_channel(u);
  for (const bool with_token : {true, false}) {
    SCOPED_TRACE(with_token ? "token" : "key alone");  // the key alone: the run mints a token and revokes it
    std::vector<std::pair<std::string, std::string>> env = {
        {"BUZZ_RELAY_URL", relay_env()}, {"BUZZ_PRIVATE_KEY", secret_hex(u)}, {"LD_DEBUG", "files"}};
    if (with_token) env.emplace_back("BUZZ_API_TOKEN", u.token);
    CliRun r = run_cli({"send-message", "--channel", ch, "--content", unique_text("loopback")}, env);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"accepted\":true"), std::string::npos) << r.out;
    EXPECT_TRUE(loaded(r, "libsecp256k1")) << "signed without it?";
    EXPECT_FALSE(loaded(r, "libcurl")) << r.err;
    EXPECT_FALSE(loaded(r, "libcrypto")) << r.err;
  }
}

// A name, not an address: `localhost` may resolve to ::1 first, where the relay does not listen.
TEST_F(CliHttpTest, RelayByNameTriesEachAddress) {
  CliUser u = new_user();
  const std::string url = relay_env();
  const std::string by_name = "http://localhost" + url.substr(url.rfind(':'));
  CliRun r = run_cli({"list-channels"}, {{"BUZZ_RELAY_URL", by_name}, {"BUZZ_API_TOKEN", u.token}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("{") || r.out.starts_with("[")) << r.out;
}

TEST_F(CliHttpTest, ConnectionRefusedIsANetworkError) {
  const std::string down = "http://127.0.0.1:" + std::to_string(free_tcp_port());
  CliRun r = run_cli({"get-feed", "--relay", down, "--token", "buzz_x"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(json_str(r.err, "error"), "network_error") << r.err;
  EXPECT_NE(json_str(r.err, "message").find("Connection refused"), std::string::npos) << r.err;
}

// Answers as a relay behind a reverse proxy may give them: chunked, or read until the server closes.
TEST_F(CliHttpTest, ChunkedAndCloseDelimitedBodies) {
  HttpReceiver fake;
  const std::vector<std::pair<std::string, std::string>> env = {{"BUZZ_RELAY_URL", fake.url("")}, {"BUZZ_API_TOKEN", "buzz_t"}};
  fake.respond_raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n6;ext=1\r\n:[1,2]\r\n1\r\n}\r\n0\r\n\r\n");
  CliRun chunked = run_cli({"get-feed"}, env);
  EXPECT_EQ(chunked.status, 0) << chunked.err;
  EXPECT_EQ(chunked.out, "{\"a\":[1,2]}\n");
  fake.respond_raw("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"b\":true}");
  CliRun to_close = run_cli({"get-feed"}, env);
  EXPECT_EQ(to_close.status, 0) << to_close.err;
  EXPECT_EQ(to_close.out, "{\"b\":true}\n");
  fake.respond_raw("HTTP/1.1 502 Bad Gateway\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nupstr\r\n0\r\n\r\n");
  CliRun bad = run_cli({"get-feed"}, env);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "{\"error\":\"relay_error\",\"message\":\"relay error 502: upstr\"}\n");
  fake.respond_raw("not http at all\r\n\r\n");
  CliRun garbage = run_cli({"get-feed"}, env);
  EXPECT_EQ(garbage.status, 2);
  EXPECT_EQ(json_str(garbage.err, "message"), "request to " + fake.url("") + "/api/feed?limit=20 failed: malformed response") << garbage.err;
}

// A relay that takes the connection and never answers: the run ends at the
// 10 s request timeout of docs/reference/agents-and-cli.md §B.1.
TEST_F(CliHttpTest, SilentRelayTimesOut) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 4), 0);  // the kernel completes the handshake; nobody accepts
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  const auto start = std::chrono::steady_clock::now();
  CliRun r = run_cli({"get-feed"}, {{"BUZZ_RELAY_URL", url}, {"BUZZ_API_TOKEN", "buzz_t"}});
  const auto took = std::chrono::steady_clock::now() - start;
  ::close(listener);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(json_str(r.err, "message"), "request to " + url + "/api/feed?limit=20 failed: no answer within 10 s") << r.err;
  EXPECT_GE(took, std::chrono::seconds(10));
  EXPECT_LT(took, std::chrono::seconds(20));
}

// A proxy in the environment is libcurl's to honour, as before the CLI had
// its own client: the request goes to the proxy, with the relay's URL in it.
TEST_F(CliHttpTest, ProxyFromTheEnvironmentIsHonoured) {
  HttpReceiver proxy;
  proxy.respond(200, R"({"items":[]})");
  CliRun r = run_cli({"get-feed"}, {{"BUZZ_RELAY_URL", "http://relay.invalid:3000"},
                                    {"BUZZ_API_TOKEN", "buzz_t"},
                                    {"http_proxy", proxy.url("")}});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"items\":[]}\n");
  ASSERT_TRUE(proxy.wait_for(1));
  EXPECT_EQ(proxy.received()[0].target, "http://relay.invalid:3000/api/feed?limit=20");
}

}  // namespace buzz::test
