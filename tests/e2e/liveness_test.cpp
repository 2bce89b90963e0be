// End-to-end tests of how the relay ends connections that stop taking part,
// with --ping-interval 1 so that the intervals pass in seconds: a WebSocket
// client is pinged at connect and every interval after, and one answering
// none is closed (1001) on the third tick, at 2 intervals (docs/reference/protocol.md §5.3);
// one that answers stays; an HTTP connection is closed after 2 intervals
// without a whole request, whether idle after a response or holding half a
// head (slowloris), while a body that keeps arriving (≥ 1 KiB per interval)
// is waited for, and one that trickles slower is cut off.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/raw_connection.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using namespace std::chrono_literals;

class LivenessTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    relay_ = RelayProcess::start(RelayOptions{{"--open", "--ping-interval", "1"}, {}, ""}, &error).release();
    ASSERT_NE(relay_, nullptr) << error;
  }
  static void TearDownTestSuite() {
    delete relay_;
    relay_ = nullptr;
  }
  static RelayProcess& relay() { return *relay_; }

  // Sends a request head with Content-Length `length`, then the body in
  // `chunk`-byte pieces `every` apart, stopping if the relay hangs up; returns
  // what the relay answered.
  static std::string post_slowly(RawConnection& c, size_t length, size_t chunk, std::chrono::milliseconds every) {
    c.send("POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(length) + "\r\n\r\n");
    for (size_t sent = 0; sent < length; sent += chunk) {
      std::this_thread::sleep_for(every);
      if (!c.try_send(std::string(std::min(chunk, length - sent), ' '))) break;
    }
    return c.read("\r\n\r\n", 3000);
  }

 private:
  static inline RelayProcess* relay_ = nullptr;
};

TEST_F(LivenessTest, WebSocketClientThatNeverAnswersPingsIsClosedOnTheThirdTick) {
  std::string error;
  auto c = NostrClient::connect(relay(), &error);
  ASSERT_TRUE(c) << error;
  c->ws().set_auto_pong(false);
  int pings = 0;
  const auto start = std::chrono::steady_clock::now(), deadline = start + 8s;
  while (!c->ws().closed() && std::chrono::steady_clock::now() < deadline) {
    auto frame = c->ws().recv_frame(1000);
    if (frame && frame->opcode == net::ws::Opcode::kPing) ++pings;
  }
  EXPECT_TRUE(c->ws().closed());
  EXPECT_EQ(c->ws().close_code(), 1001);
  EXPECT_EQ(pings, 2);  // at connect and one interval later
  EXPECT_GE(std::chrono::steady_clock::now() - start, 1s);
}

TEST_F(LivenessTest, WebSocketClientThatAnswersPingsStays) {
  engine::Keypair key = engine::generate_keypair();
  std::string error;
  auto c = NostrClient::connect_authed(relay(), key, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_FALSE(c->ws().recv(5000)) << "nothing but pings should arrive";  // pongs go back meanwhile
  EXPECT_FALSE(c->ws().closed()) << "close code " << c->ws().close_code();
  EXPECT_TRUE(c->req("still", R"({"kinds":[1],"limit":1})").eose);
}

// docs/reference/protocol.md §5.3: Pongs wait on a control queue of 8 slots, and a full one
// is a dead writer. A client that floods Pings and never reads must be
// dropped, not answered into memory without bound. (A relay of its own, with
// the default 30 s interval, so the heartbeat itself does not end the test.)
TEST(HeartbeatTest, ClientThatFloodsPingsWithoutReadingIsDropped) {
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open"}, {}, ""}, &error);
  ASSERT_NE(relay, nullptr) << error;
  RawConnection c(relay->port());
  c.send("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  ASSERT_NE(c.read("\r\n\r\n").find(" 101 "), std::string::npos);
  // Masked (zero key) Pings of 125 bytes each, a mebibyte at a time, never reading a Pong.
  std::string ping = {char(0x89), char(0x80 | 125), 0, 0, 0, 0};
  ping.append(125, 'p');
  std::string burst;
  while (burst.size() < (1 << 20)) burst += ping;
  bool stopped = false;  // the relay closed, or stopped reading (a send blocked for 10 s)
  int mib = 0;
  for (; mib < 256 && !stopped; ++mib) stopped = !c.try_send(burst);
  EXPECT_TRUE(c.closed_by_peer_within(5000)) << "open after " << mib << " MiB of Pings";
  // The relay itself is fine.
  EXPECT_EQ(http_get(relay->port(), "/health").status, 200);
}

TEST_F(LivenessTest, HttpConnectionHoldingHalfAHeadIsClosed) {
  RawConnection c(relay().port());
  c.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ");
  EXPECT_FALSE(c.closed_by_peer_within(500)) << "closed at once, not by the idle rule";
  EXPECT_TRUE(c.closed_by_peer_within(4000));
}

TEST_F(LivenessTest, IdleKeepAliveHttpConnectionIsClosed) {
  RawConnection c(relay().port());
  c.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(c.read("\"ok\"}").find("HTTP/1.1 200"), std::string::npos);
  EXPECT_TRUE(c.closed_by_peer_within(4000));
}

TEST_F(LivenessTest, BodyThatKeepsArrivingIsWaitedFor) {
  RawConnection c(relay().port());
  // 4 KiB per second for 4 s: past the 2-interval limit, but never stalled.
  std::string answer = post_slowly(c, 16 * 1024, 1024, 250ms);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 4")) << answer;  // refused (no auth), but answered
}

TEST_F(LivenessTest, BodyTricklingSlowerThanAKibibytePerIntervalIsCutOff) {
  RawConnection c(relay().port());
  std::string answer = post_slowly(c, 400, 20, 250ms);  // 80 bytes per second for 5 s
  EXPECT_EQ(answer, "");
  EXPECT_TRUE(c.closed_by_peer_within(1000));
}

}  // namespace
}  // namespace buzz::test
