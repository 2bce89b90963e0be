// OpenRelayTest: one open relay (`--open`, rate limits off) for the whole
// suite, whose tests are spread over relay_core_*test.cpp, and the client
// helpers those files share. Tests isolate themselves by using fresh keypairs
// (and filtering by author), so they may run in any order.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {

inline RelayOptions open_relay_options() { return RelayOptions{{"--open"}, {}, ""}; }

inline std::unique_ptr<NostrClient> connect_client(const RelayProcess& relay) {
  std::string error;
  auto c = NostrClient::connect(relay, &error);
  EXPECT_NE(c, nullptr) << error;
  return c;
}

inline std::unique_ptr<NostrClient> authed_client(const RelayProcess& relay, const engine::Keypair& key) {
  std::string error;
  auto c = NostrClient::connect_authed(relay, key, &error);
  EXPECT_NE(c, nullptr) << error;
  return c;
}

// created_at is any unsigned 64-bit integer. 2^63 + now, read as a signed
// offset from now, is -2^63, whose absolute value does not exist: it must be
// "far away", never "within the window". The test's second and the relay's may
// differ, so the seconds around now are all tried.
inline std::vector<uint64_t> created_at_beyond_2_to_63() {
  uint64_t now = unix_now();
  return {(1ull << 63) + now - 1, (1ull << 63) + now, (1ull << 63) + now + 1, UINT64_MAX};
}

class OpenRelayTest : public ::testing::Test {
 protected:
  // Its tests publish and subscribe at test speed, past a human's frame and
  // message limits (docs/reference/protocol.md §14, tested in rate_limit_test.cpp).
  static void SetUpTestSuite() {
    RelayOptions o = open_relay_options();
    o.extra_args.insert(o.extra_args.end(), {"--rate-limits", "false"});
    relay_ = start_relay(o);
  }
  static void TearDownTestSuite() { relay_.reset(); }
  void SetUp() override { ASSERT_NE(relay_, nullptr) << "the relay did not start"; }

  static const RelayProcess& relay() { return *relay_; }

  // Publishes n kind-1 events by key with created_at base, base+1, ...; even
  // ones carry ["t","even"], odd ones ["t","odd"].
  static std::vector<engine::Event> publish_series(NostrClient& c, const engine::Keypair& key, int n, uint64_t base) {
    std::vector<engine::Event> events;
    for (int i = 0; i < n; ++i) {
      engine::Event e = make_event(key, 1, "note " + std::to_string(i), {{"t", i % 2 == 0 ? "even" : "odd"}},
                                   base + uint64_t(i));
      OkReply ok = c.publish(e);
      EXPECT_TRUE(ok.accepted) << ok.reason;
      events.push_back(std::move(e));
    }
    return events;
  }

  // Publishes n kind-1 events by key, pipelined in batches the writer's 1,024
  // concurrent handlers take, created_at descending from a second ago (two per
  // second, inside the ±900 s window); event i carries tags_of(i).
  static std::vector<engine::Event> publish_bulk(NostrClient& c, const engine::Keypair& key, int n,
                                                 const std::function<std::vector<engine::Tag>(int)>& tags_of) {
    const uint64_t newest = unix_now() - 1;
    std::vector<engine::Event> events;
    for (int i = 0; i < n; ++i) {
      events.push_back(make_event(key, 1, "bulk " + std::to_string(i), tags_of(i), newest - uint64_t(i / 2)));
      EXPECT_TRUE(c.send("[\"EVENT\"," + events.back().raw + "]"));
      if (i % 500 != 499 && i != n - 1) continue;
      for (int j = i - i % 500; j <= i; ++j) {
        OkReply ok = c.wait_ok(events[size_t(j)].id_hex(), 10000);
        EXPECT_TRUE(ok.accepted) << "event " << j << ": " << (ok.received ? ok.reason : "no OK");
      }
    }
    return events;
  }

  static inline std::unique_ptr<RelayProcess> relay_;
};

}  // namespace buzz::test
