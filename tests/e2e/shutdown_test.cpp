// SIGTERM drains (docs/operations.md, "Stopping"): the relay stops accepting,
// stores and answers the events it already read, closes every WebSocket with
// 1001 behind those answers, and exits 0 within --shutdown-timeout.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/open_relay_fixture.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;
using Clock = std::chrono::steady_clock;

RelayOptions drained_relay(const std::string& data_dir = "") {
  RelayOptions o = open_relay_options();
  o.extra_args.insert(o.extra_args.end(), {"--rate-limits", "false"});
  o.env.emplace_back("BUZZ_SHUTDOWN_TIMEOUT_SECS", "5");
  o.data_dir = data_dir;
  return o;
}

// Reads everything up to the relay's close: the OKs that came first, in order.
std::vector<RelayMessage> read_until_closed(NostrClient& c, int timeout_ms) {
  std::vector<RelayMessage> got;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!c.ws().closed() && Clock::now() < deadline) {
    if (auto m = c.next_message(200)) got.push_back(std::move(*m));
  }
  return got;
}

// A burst of events is in the pipeline (read, not yet all answered) when
// SIGTERM comes: each gets its OK before the 1001, and all are there after a
// restart; an idle WebSocket hears 1001 too; the process exits 0 well within
// its bound.
TEST(ShutdownTest, SigtermAnswersWhatWasReadThenClosesWith1001) {
  auto relay = start_relay(drained_relay());
  ASSERT_NE(relay, nullptr);
  Keypair key = engine::generate_keypair();
  auto writer = authed_client(*relay, key);
  auto idle = authed_client(*relay, engine::generate_keypair());
  ASSERT_NE(writer, nullptr);
  ASSERT_NE(idle, nullptr);

  constexpr int kEvents = 200;
  std::vector<Event> sent;
  std::string burst;
  for (int i = 0; i < kEvents; ++i) sent.push_back(make_event(key, 1, "before the stop " + std::to_string(i)));
  for (const Event& e : sent) ASSERT_TRUE(writer->send("[\"EVENT\"," + e.raw + "]"));
  // The first answer means the relay is reading the burst; the rest are in
  // its loop or its writer when the signal lands.
  ASSERT_TRUE(writer->wait_ok(engine::to_hex(sent.front().id)).accepted);
  const auto signalled = Clock::now();
  ASSERT_EQ(::kill(relay->pid(), SIGTERM), 0);

  std::set<std::string> answered{engine::to_hex(sent.front().id)};
  for (const RelayMessage& m : read_until_closed(*writer, 5000)) {
    if (m.type == "OK" && m.accepted) answered.insert(m.id);
  }
  EXPECT_EQ(writer->ws().close_code(), 1001);
  EXPECT_EQ(answered.size(), size_t(kEvents)) << "every event read before the stop is answered before the close";
  read_until_closed(*idle, 5000);
  EXPECT_EQ(idle->ws().close_code(), 1001);

  ASSERT_TRUE(relay->wait_exit(5000)) << relay->stderr_text();
  EXPECT_LT(Clock::now() - signalled, std::chrono::seconds(5));
  EXPECT_NE(relay->stderr_text().find("\"drained\""), std::string::npos) << relay->stderr_text();

  auto again = start_relay(drained_relay(relay->data_dir()));
  ASSERT_NE(again, nullptr);
  auto reader = authed_client(*again, engine::generate_keypair());
  ReqResult stored = reader->req("all", R"({"authors":[")" + hex(key) + R"("],"limit":500})");
  ASSERT_TRUE(stored.eose);
  EXPECT_EQ(stored.events.size(), size_t(kEvents));
}

}  // namespace
}  // namespace buzz::test
