// End-to-end tests of the health and metrics surface (docs/reference/rest-api.md §3.16): the
// main port's /health, /_liveness and /_readiness, and the side ports that
// BUZZ_HEALTH_PORT and BUZZ_METRICS_PORT open (off unless set): what each port
// serves and refuses, that a peer which stalls mid-request cannot keep a probe
// from being answered, and that a side port already taken stops the start-up
// with a message naming it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/e2e/nostr_client.h"
#include "tests/e2e/raw_connection.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

class HealthPortsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    health_port_ = free_tcp_port();
    metrics_port_ = free_tcp_port();
    std::string error;
    relay_ = RelayProcess::start(RelayOptions{{"--open"},
                                              {{"BUZZ_HEALTH_PORT", std::to_string(health_port_)},
                                               {"BUZZ_METRICS_PORT", std::to_string(metrics_port_)}},
                                              ""},
                                 &error)
                 .release();
    ASSERT_NE(relay_, nullptr) << error;
  }
  static void TearDownTestSuite() {
    delete relay_;
    relay_ = nullptr;
  }
  static RelayProcess& relay() { return *relay_; }

  static inline RelayProcess* relay_ = nullptr;
  static inline uint16_t health_port_ = 0, metrics_port_ = 0;
};

TEST_F(HealthPortsTest, MainPortAnswersProbesButNotStatus) {
  for (const char* path : {"/health", "/_liveness"}) {
    HttpReply r = http_get(relay().port(), path);
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, "ok") << path;
    EXPECT_EQ(r.headers["content-type"].rfind("text/plain", 0), 0u) << path;
  }
  HttpReply ready = http_get(relay().port(), "/_readiness");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, R"({"status":"ready","storage":"rocksdb"})");
  EXPECT_EQ(http_get(relay().port(), "/_status").status, 404);  // the health port's alone
}

TEST_F(HealthPortsTest, HealthPortServesProbesAndStatusOnly) {
  EXPECT_EQ(http_get(health_port_, "/_liveness").body, "ok");
  EXPECT_EQ(http_get(health_port_, "/health").body, "ok");
  EXPECT_EQ(http_get(health_port_, "/_readiness").status, 200);
  HttpReply status = http_get(health_port_, "/_status");
  EXPECT_EQ(status.status, 200);
  EXPECT_EQ(status.body.rfind(R"({"service":"buzz-relay","version":")", 0), 0u) << status.body;
  EXPECT_NE(status.body.find(R"(","uptime_seconds":)"), std::string::npos) << status.body;

  EXPECT_EQ(http_get(health_port_, "/metrics").status, 404);
  EXPECT_EQ(http_get(health_port_, "/api/channels").status, 404);  // nothing of the relay's own surface
  HttpReply post = http_call(health_port_, "POST", "/_liveness", {}, "x");
  EXPECT_EQ(post.status, 405);
}

TEST_F(HealthPortsTest, MetricsPortServesPrometheusTextOnly) {
  HttpReply m = http_get(metrics_port_, "/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_EQ(m.headers["content-type"], "text/plain; version=0.0.4");
  EXPECT_NE(m.body.find("\nbuzz_ws_connections_active "), std::string::npos) << m.body;
  EXPECT_EQ(http_get(metrics_port_, "/_liveness").status, 404);
}

TEST_F(HealthPortsTest, MalformedRequestIsRefusedAndThePortStaysUp) {
  RawConnection garbage(health_port_);
  garbage.send("NOT HTTP AT ALL\r\n\r\n");
  EXPECT_EQ(garbage.read("\r\n").rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(http_get(health_port_, "/_liveness").status, 200);
}

// One thread serves the side ports; each peer gets a bounded time to finish
// its request, so one that stalls delays a probe by that much at most.
TEST_F(HealthPortsTest, StalledPeerDoesNotStarveProbes) {
  RawConnection stalled(health_port_);
  stalled.send("GET /_liveness HTTP/1.1\r\nHost: x\r\n");  // no blank line, ever
  HttpReply probe = http_get(health_port_, "/_liveness");
  EXPECT_EQ(probe.status, 200);
  EXPECT_EQ(probe.body, "ok");
}

TEST(HealthPortsStartTest, TakenSidePortStopsTheStart) {
  uint16_t port = 0;
  const int holder = listen_loopback(&port);
  ASSERT_GE(holder, 0);
  const std::string taken = std::to_string(port);

  std::string error;
  auto relay = RelayProcess::start(RelayOptions{{"--open", "--metrics-port", taken}, {}, ""}, &error);
  EXPECT_EQ(relay, nullptr);
  EXPECT_NE(error.find("buzz serve: metrics port 127.0.0.1:" + taken + ": Address already in use"), std::string::npos)
      << error;
  ::close(holder);
}

}  // namespace
}  // namespace buzz::test
