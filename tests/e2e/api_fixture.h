// ApiFixture: one real relay per test suite (started once, `--open` plus the
// suite's extra arguments) and the calls every REST test makes: NIP-98 signed
// requests and authenticated WebSocket clients. A suite derives from
// ApiFixture<Itself> so each suite gets its own relay.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {


template <class Suite>
class ApiFixture : public ::testing::Test {
 protected:
  // A suite may hide these to start its relay with more arguments or environment.
  static std::vector<std::string> relay_args() { return {}; }
  static std::vector<std::pair<std::string, std::string>> relay_env() { return {}; }

  static void SetUpTestSuite() {
    std::vector<std::string> args = {"--open"};
    for (std::string& a : Suite::relay_args()) args.push_back(std::move(a));
    std::string error;
    relay_ = RelayProcess::start(RelayOptions{args, Suite::relay_env(), ""}, &error);
    ASSERT_NE(relay_, nullptr) << error;
  }
  static void TearDownTestSuite() { relay_.reset(); }

  static std::string url(const std::string& path) { return "http://127.0.0.1:" + std::to_string(relay_->port()) + path; }
  // A request signed by key (NIP-98; payload-tagged when there is a body).
  static HttpReply signed_call(const engine::Keypair& key, const std::string& method, const std::string& path,
                               const std::string& body = "") {
    return http_call(relay_->port(), method, path, {{"Authorization", nip98_header(key, url(path), method, body)}}, body);
  }
  static HttpReply get(const engine::Keypair& key, const std::string& path) { return signed_call(key, "GET", path); }
  static std::unique_ptr<NostrClient> client(const engine::Keypair& key) {
    std::string error;
    auto c = NostrClient::connect_authed(*relay_, key, &error);
    EXPECT_NE(c, nullptr) << error;
    return c;
  }

  static inline std::unique_ptr<RelayProcess> relay_;
};

}  // namespace buzz::test
