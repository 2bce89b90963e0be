// End-to-end tests of native TLS (docs/tls.md): the relay started with
// --tls-cert/--tls-key serves wss:// and https:// on its one port, with a test
// CA and certificates made here by the openssl CLI. A NIP-42 session, EVENT
// and REQ over wss; /health, NIP-11 and a REST call over https; a renewal by
// SIGHUP that an open session survives while a new connection sees the new
// certificate; a bad file at SIGHUP that leaves the old certificate; bad
// certificates and keys refused at start with a clear message.
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"
#include "tests/e2e/scratch_dir.h"
#include "tools/client/http_client.h"

namespace buzz::test {
namespace {

namespace fs = std::filesystem;

// Runs a shell command; true when it exits 0.
bool sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

// A throwaway CA and server certificates it signs, in a temp dir.
class TestPki {
 public:
  TestPki() {
    ok_ = sh("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=buzz-test-ca"
             " -keyout " + path("ca.key") + " -out " + path("ca.pem"));
  }

  bool ok() const { return ok_; }
  std::string path(const std::string& name) const { return dir_ / name; }
  client::TlsOptions client() const { return {path("ca.pem"), "localhost"}; }

  // A server certificate for localhost and 127.0.0.1 with this common name:
  // name.pem (leaf then CA: a full chain) and name.key.
  bool issue(const std::string& name) {
    const std::string ext = path(name + ".ext");
    std::ofstream(ext) << "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n";
    return sh("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=" + name + " -keyout " +
              path(name + ".key") + " -out " + path(name + ".csr")) &&
           sh("openssl x509 -req -in " + path(name + ".csr") + " -CA " + path("ca.pem") + " -CAkey " + path("ca.key") +
              " -CAcreateserial -days 2 -extfile " + ext + " -out " + path(name + ".leaf")) &&
           concat({path(name + ".leaf"), path("ca.pem")}, path(name + ".pem"));
  }

 private:
  static bool concat(const std::vector<std::string>& parts, const std::string& to) {
    std::ofstream out(to, std::ios::binary);
    for (const std::string& p : parts) out << std::ifstream(p, std::ios::binary).rdbuf();
    return bool(out);
  }

  const ScratchDir dir_{"tls"};
  bool ok_ = false;
};

// The common name of the certificate the server showed on this session.
std::string peer_name(SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (!cert) return "";
  char cn[256] = "";
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
  X509_free(cert);
  return cn;
}

// Waits up to 5 s for the relay's log to contain `text`.
bool log_shows(const RelayProcess& relay, const std::string& text) {
  for (int i = 0; i < 250; ++i) {
    if (relay.stderr_text().find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.ok()) << "openssl CLI needed";
    ASSERT_TRUE(pki_.issue("first"));
    // The files the relay is configured with; a renewal overwrites them.
    fs::copy_file(pki_.path("first.pem"), pki_.path("live.pem"));
    fs::copy_file(pki_.path("first.key"), pki_.path("live.key"));
  }

  std::unique_ptr<RelayProcess> start(std::vector<std::string> args = {}) {
    args.insert(args.end(), {"--tls-cert", pki_.path("live.pem"), "--tls-key", pki_.path("live.key")});
    std::string error;
    auto relay = RelayProcess::start(RelayOptions{args, {}, ""}, &error, pki_.client());
    EXPECT_NE(relay, nullptr) << error;
    return relay;
  }

  TestPki pki_;
};

TEST_F(TlsTest, NostrSessionOverWss) {
  auto relay = start({"--open"});
  ASSERT_NE(relay, nullptr);
  EXPECT_EQ(relay->relay_url().rfind("wss://", 0), 0u);
  const engine::Keypair alice = engine::generate_keypair();
  std::string error;
  auto c = NostrClient::connect_authed(*relay, alice, &error);  // NIP-42 AUTH against the wss:// relay URL
  ASSERT_NE(c, nullptr) << error;
  EXPECT_EQ(peer_name(c->ws().ssl()), "first");
  EXPECT_STREQ(SSL_get_version(c->ws().ssl()), "TLSv1.3");
  const unsigned char* alpn = nullptr;
  unsigned alpn_len = 0;
  SSL_get0_alpn_selected(c->ws().ssl(), &alpn, &alpn_len);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(alpn), alpn_len), "http/1.1");

  // Events past one TLS record (16 KiB) each, so frames are split and joined both ways.
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    engine::Event e = make_event(alice, 1, "over tls " + std::to_string(i) + std::string(size_t(i) * 1500, 'x'));
    OkReply ok = c->publish(e);
    ASSERT_TRUE(ok.accepted) << ok.reason;
    ids.push_back(engine::to_hex(e.id));
  }
  ReqResult r = c->req("mine", R"({"authors":[")" + hex(alice) + R"("]})");
  EXPECT_TRUE(r.eose);
  EXPECT_EQ(r.events.size(), ids.size());

  // A second session sees the first one's event live.
  auto bob = NostrClient::connect_authed(*relay, engine::generate_keypair(), &error);
  ASSERT_NE(bob, nullptr) << error;
  ASSERT_TRUE(bob->req("live", R"({"kinds":[1],"limit":0})").eose);
  engine::Event live = make_event(alice, 1, "live over tls");
  ASSERT_TRUE(c->publish(live).accepted);
  auto got = bob->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.id == "live"; });
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->event.content, "live over tls");
}

TEST_F(TlsTest, HttpsServesHealthInfoAndRest) {
  auto relay = start({"--open"});
  ASSERT_NE(relay, nullptr);
  const client::TlsOptions tls = pki_.client();
  client::HttpReply health = client::http_call(relay->port(), "GET", "/health", {}, "", 5000, &tls);
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok");
  client::HttpReply info = client::http_call(relay->port(), "GET", "/", {{"Accept", "application/nostr+json"}}, "", 5000, &tls);
  EXPECT_EQ(info.status, 200);
  EXPECT_NE(info.body.find("\"supported_nips\""), std::string::npos) << info.body;
  // A REST call that needs its NIP-98 signature checked against the https:// URL.
  client::HttpReply no_auth = client::http_call(relay->port(), "GET", "/api/channels", {}, "", 5000, &tls);
  EXPECT_EQ(no_auth.status, 401) << no_auth.body;
  // Plaintext on the TLS port gets no HTTP answer.
  EXPECT_EQ(client::http_call(relay->port(), "GET", "/health", {}, "", 2000).status, 0);
}

TEST_F(TlsTest, SighupRenewsTheCertificateAndOpenSessionsSurvive) {
  auto relay = start({"--open"});
  ASSERT_NE(relay, nullptr);
  const engine::Keypair alice = engine::generate_keypair();
  std::string error;
  auto before = NostrClient::connect_authed(*relay, alice, &error);
  ASSERT_NE(before, nullptr) << error;
  ASSERT_EQ(peer_name(before->ws().ssl()), "first");

  ASSERT_TRUE(pki_.issue("second"));
  fs::copy_file(pki_.path("second.pem"), pki_.path("live.pem"), fs::copy_options::overwrite_existing);
  fs::copy_file(pki_.path("second.key"), pki_.path("live.key"), fs::copy_options::overwrite_existing);
  ASSERT_EQ(::kill(relay->pid(), SIGHUP), 0);
  ASSERT_TRUE(log_shows(*relay, "TLS certificate reloaded")) << relay->stderr_text();

  auto after = NostrClient::connect_authed(*relay, alice, &error);
  ASSERT_NE(after, nullptr) << error;
  EXPECT_EQ(peer_name(after->ws().ssl()), "second");
  // The session opened before the renewal goes on, on its own keys.
  EXPECT_TRUE(before->publish(make_event(alice, 1, "still here")).accepted);
  EXPECT_TRUE(before->req("q", R"({"authors":[")" + hex(alice) + R"("]})").eose);

  // A broken file at the next SIGHUP: logged, and the certificate in use stays.
  std::ofstream(pki_.path("live.pem"), std::ios::trunc) << "-----BEGIN CERTIFICATE-----\nnot base64\n";
  ASSERT_EQ(::kill(relay->pid(), SIGHUP), 0);
  ASSERT_TRUE(log_shows(*relay, "TLS certificate not reloaded")) << relay->stderr_text();
  auto third = NostrClient::connect_authed(*relay, alice, &error);
  ASSERT_NE(third, nullptr) << error;
  EXPECT_EQ(peer_name(third->ws().ssl()), "second");
  EXPECT_TRUE(after->publish(make_event(alice, 1, "and here")).accepted);
}

TEST_F(TlsTest, BadCertificateOrKeyRefusedAtStart) {
  ASSERT_TRUE(pki_.issue("other"));
  std::ofstream(pki_.path("garbage.pem")) << "this is not PEM\n";
  struct Case {
    std::string cert, key, says;
  };
  const Case cases[] = {
      {pki_.path("missing.pem"), pki_.path("live.key"), "cannot read the TLS certificate " + pki_.path("missing.pem")},
      {pki_.path("live.pem"), pki_.path("missing.key"), "cannot read the TLS key " + pki_.path("missing.key")},
      {pki_.path("garbage.pem"), pki_.path("live.key"), "cannot load the TLS certificate chain from " + pki_.path("garbage.pem")},
      {pki_.path("live.pem"), pki_.path("garbage.pem"), "cannot load the TLS private key from " + pki_.path("garbage.pem")},
      {pki_.path("live.pem"), pki_.path("other.key"), "does not match the certificate"},
      {pki_.path("live.pem"), "", "tls-cert and tls-key must be set together"},
  };
  for (const Case& c : cases) {
    const fs::path data = pki_.path("data");
    int status = 0;
    std::string args = "serve --open --bind 127.0.0.1:0 --data-dir " + data.string() + " --tls-cert " + c.cert;
    if (!c.key.empty()) args += " --tls-key " + c.key;
    const std::string out = run_buzz(args, &status);
    EXPECT_NE(status, 0) << args;
    EXPECT_NE(out.find(c.says), std::string::npos) << out;
    EXPECT_FALSE(fs::exists(data)) << "refused before anything was opened";
  }
}

}  // namespace
}  // namespace buzz::test
