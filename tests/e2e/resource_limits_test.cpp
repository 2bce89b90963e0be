// End-to-end tests of the bounds a client that does not authenticate, or does
// not read, or uploads at a trickle, cannot get past (docs/limits.md,
// "Connections", "Send queues", "Media uploads"): the AUTH deadline of a
// closed relay, the per-address cap on unauthenticated connections, probes
// answered at the connection cap, the per-pubkey session cap, a connection's
// queued bytes, the relay-wide send memory, and upload bodies spooled, bounded
// in flight and held to a minimum rate. Each runs its own relay with small
// limits, so it stays fast.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/e2e_helpers.h"
#include "tests/e2e/media_fixture.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/open_relay_fixture.h"
#include "tests/e2e/raw_connection.h"
#include "tests/e2e/relay_process.h"
#include "tools/client/ws_client.h"

namespace buzz::test {
namespace {

using engine::Keypair;

// Polls `ok` every 50 ms until it holds or timeout_ms passes.
template <class Pred>
bool eventually_ok(Pred ok, int timeout_ms = 5000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!ok()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

int64_t metric(const RelayProcess& relay, const std::string& name) {
  return metric_value(http_get(relay.port(), "/metrics").body, name);
}

// Reads until the relay closes the connection (or timeout_ms); its close code.
uint16_t close_code_within(client::WsClient& ws, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!ws.closed() && std::chrono::steady_clock::now() < deadline) ws.recv(100);
  return ws.close_code();
}

// n kind-1 events by key of about `bytes` each, tagged t=tag, stored (the
// caller's relay runs without rate limits).
void publish_sized(NostrClient& c, const Keypair& key, int n, size_t bytes, const std::string& tag) {
  const uint64_t newest = unix_now() - 1;
  std::vector<engine::Event> events;
  for (int i = 0; i < n; ++i) {
    events.push_back(make_event(key, 1, std::string(bytes, char('a' + i % 26)), {{"t", tag}}, newest - uint64_t(i / 4)));
    ASSERT_TRUE(c.send("[\"EVENT\"," + events.back().raw + "]"));
  }
  for (const engine::Event& e : events) ASSERT_TRUE(c.wait_ok(e.id_hex(), 10000).accepted);
}

std::string tagged(const Keypair& key, const std::string& tag) {
  return R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"#t":[")" + tag + R"("],"limit":500})";
}

// --- Connections ---------------------------------------------------------------

// 10,000 sockets that never AUTH used to hold the whole connection cap for as
// long as they liked; on a closed relay a session now has auth-timeout to AUTH.
TEST(ResourceLimitsTest, ASessionWithoutAuthIsClosedAtTheDeadline) {
  const Keypair owner = engine::generate_keypair();
  auto relay = start_relay({{"--owner", hex(owner), "--auth-timeout", "1"}, {}, ""});
  ASSERT_TRUE(relay);
  auto silent = connect_client(*relay);
  auto member = authed_client(*relay, owner);
  ASSERT_TRUE(silent && member);
  EXPECT_EQ(close_code_within(silent->ws(), 4000), 1008);
  // The authenticated session outlives the deadline.
  EXPECT_TRUE(member->req("after", R"({"kinds":[1],"limit":1})").eose);
  EXPECT_GE(metric(*relay, "buzz_auth_timeouts_total"), 1);
}

TEST(ResourceLimitsTest, AnOpenRelayHasNoAuthDeadline) {
  auto relay = start_relay({{"--open", "--auth-timeout", "1"}, {}, ""});
  ASSERT_TRUE(relay);
  auto reader = connect_client(*relay);
  ASSERT_TRUE(reader);
  EXPECT_FALSE(reader->ws().recv(2500));
  EXPECT_FALSE(reader->ws().closed());
}

// One address may hold only so many connections that have not authenticated;
// an authenticated session no longer counts against it.
TEST(ResourceLimitsTest, UnauthenticatedConnectionsPerAddressAreCapped) {
  const Keypair owner = engine::generate_keypair();
  auto relay = start_relay({{"--owner", hex(owner), "--max-unauthenticated-per-address", "3"}, {}, ""});
  ASSERT_TRUE(relay);
  std::vector<std::unique_ptr<NostrClient>> waiting;
  std::string error;
  for (int i = 0; i < 3; ++i) {
    // The start-up's own /health polls may not be gone yet.
    std::unique_ptr<NostrClient> c;
    ASSERT_TRUE(eventually_ok([&] { return (c = NostrClient::connect(*relay, &error)) != nullptr; })) << error;
    waiting.push_back(std::move(c));
  }
  HttpReply refused = http_get(relay->port(), "/health");
  EXPECT_EQ(refused.status, 429);
  EXPECT_NE(refused.body.find("too many connections from this address waiting to authenticate"), std::string::npos)
      << refused.body;
  EXPECT_FALSE(NostrClient::connect(*relay, &error));

  ASSERT_TRUE(waiting[0]->authenticate(owner).accepted);
  ASSERT_TRUE(eventually_ok([&] { return http_get(relay->port(), "/health").status == 200; }));
  // The probe's own connection may still count for a moment: /metrics can be refused 429 (-1) meanwhile.
  int64_t refusals = -1;
  eventually_ok([&] { return (refusals = metric(*relay, "buzz_connections_refused_per_address_total")) >= 0; });
  EXPECT_GE(refusals, 1);
}

// At the connection cap everyone used to get 503, /health included; a few
// connections past the cap now answer the probes, and only them.
TEST(ResourceLimitsTest, ProbesAreAnsweredAtTheConnectionCap) {
  const uint16_t health_port = free_tcp_port();
  auto relay = start_relay({{"--open", "--max-connections", "4"}, {{"BUZZ_HEALTH_PORT", std::to_string(health_port)}}, ""});
  ASSERT_TRUE(relay);
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 4; ++i) held.push_back(std::make_unique<RawConnection>(relay->port()));
  ASSERT_TRUE(eventually_ok([&] { return http_get(relay->port(), "/api/channels").status == 503; }));
  for (const char* path : {"/health", "/_liveness", "/_readiness"}) {
    EXPECT_EQ(http_get(relay->port(), path).status, 200) << path;
  }
  std::string error;
  EXPECT_FALSE(NostrClient::connect(*relay, &error)) << "a WebSocket past the cap";
  EXPECT_EQ(http_get(health_port, "/health").status, 200);
  // A probe connection that says nothing is not kept.
  RawConnection idle(relay->port());
  EXPECT_TRUE(idle.closed_by_peer_within(5000));
}

// One member's connections are capped, so they cannot multiply what a
// connection may queue.
TEST(ResourceLimitsTest, SessionsPerPubkeyAreCapped) {
  auto relay = start_relay({{"--open", "--max-connections-per-pubkey", "2"}, {}, ""});
  ASSERT_TRUE(relay);
  const Keypair key = engine::generate_keypair();
  auto first = authed_client(*relay, key);
  auto second = authed_client(*relay, key);
  ASSERT_TRUE(first && second);
  auto third = connect_client(*relay);
  ASSERT_TRUE(third);
  OkReply ok = third->authenticate(key);
  ASSERT_TRUE(ok.received);
  EXPECT_FALSE(ok.accepted);
  EXPECT_EQ(ok.reason, "restricted: too many connections for this pubkey (max 2)");
  EXPECT_EQ(close_code_within(third->ws(), 3000), 1008);
  EXPECT_TRUE(authed_client(*relay, engine::generate_keypair())) << "another pubkey has its own";
  first.reset();  // one goes: there is room again
  std::string error;
  EXPECT_TRUE(eventually_ok([&] { return NostrClient::connect_authed(*relay, key, &error) != nullptr; })) << error;
  EXPECT_GE(metric(*relay, "buzz_auth_pubkey_connection_cap_total"), 1);
}

// --- Send queues -----------------------------------------------------------------

// A connection's queue is bounded in bytes, not only in frames: 200 events
// of 4 KiB are 200 frames (far under the frame limit) but 800 KiB, and a REQ
// for them ends at 256 KiB, without EOSE.
TEST(ResourceLimitsTest, AReplayStopsAtTheConnectionsQueuedBytes) {
  auto relay = start_relay({{"--open", "--rate-limits", "false", "--send-buffer-bytes", "262144"}, {}, ""});
  ASSERT_TRUE(relay);
  const Keypair key = engine::generate_keypair();
  auto c = authed_client(*relay, key);
  ASSERT_TRUE(c);
  publish_sized(*c, key, 200, 4096, "big");
  ReqResult r = c->req("big", tagged(key, "big"), 3000);
  EXPECT_FALSE(r.eose);
  EXPECT_GT(r.events.size(), 0u);
  EXPECT_LE(r.events.size(), 65u);  // 256 KiB of 4 KiB events, and the one that crossed it
  // A smaller REQ on the same connection, once drained, is whole.
  EXPECT_TRUE(c->req("small", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"limit":10})").eose);
}

// Past the relay-wide send memory, the slowest reader goes first: a member
// who asks for 8 MiB and never reads is closed; a reader who keeps up is not.
TEST(ResourceLimitsTest, TheSlowestReaderIsClosedPastTheRelaysSendMemory) {
  auto relay = start_relay({{"--open", "--rate-limits", "false", "--send-memory-bytes", "1048576"}, {}, ""});
  ASSERT_TRUE(relay);
  const Keypair key = engine::generate_keypair();
  auto publisher = authed_client(*relay, key);
  ASSERT_TRUE(publisher);
  publish_sized(*publisher, key, 500, 4096, "hoard");
  publish_sized(*publisher, key, 20, 1024, "light");

  auto hoarder = authed_client(*relay, engine::generate_keypair());
  auto reader = authed_client(*relay, engine::generate_keypair());
  ASSERT_TRUE(hoarder && reader);
  const int64_t open_before = metric(*relay, "buzz_ws_connections_active");
  int small = 4096;  // the kernel then holds little of what the relay sends it
  ASSERT_EQ(setsockopt(hoarder->ws().fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
  // 4 × 2 MiB: more than the kernel's buffers on loopback take off the relay's hands.
  for (const char* sub : {"h1", "h2", "h3", "h4"}) {
    ASSERT_TRUE(hoarder->send(std::string(R"(["REQ",")") + sub + "\"," + tagged(key, "hoard") + "]"));
  }
  ASSERT_TRUE(eventually_ok([&] { return metric(*relay, "buzz_ws_send_memory_disconnects_total") == 1; }, 5000));

  ReqResult light = reader->req("light", tagged(key, "light"));
  EXPECT_TRUE(light.eose) << why(light);
  EXPECT_EQ(light.events.size(), 20u);
  // The hoarder's connection is gone once the close has had its few seconds
  // to go out (it reads nothing, so it never does).
  EXPECT_TRUE(eventually_ok([&] { return metric(*relay, "buzz_ws_connections_active") < open_before; }, 10000));
  EXPECT_EQ(metric(*relay, "buzz_ws_send_memory_disconnects_total"), 1);
}

// --- Media uploads ----------------------------------------------------------------

class UploadLimitsTest : public MediaTest {
 protected:
  void SetUp() override {}
  // The head of an upload of `length` bytes whose hash is `sha`, by key.
  static std::string head(const Keypair& key, const std::string& sha, uint64_t length) {
    return upload_head(blossom_auth(key, sha), sha, length, "Content-Type: application/octet-stream\r\n");
  }
};

// A body past 256 KiB goes to disk as it arrives, not into memory, and is
// stored like any other once whole.
TEST_F(UploadLimitsTest, ABodyPastTheThresholdIsSpooledToDisk) {
  relay_ = start({"--open"});
  ASSERT_TRUE(relay_);
  const std::string body(1 << 20, 'z');
  const std::string sha = sha256_hex(body);
  RawConnection c(relay_->port());
  c.send(head(alice_, sha, body.size()) + body.substr(0, body.size() / 2));
  EXPECT_TRUE(eventually_ok([&] { return files_in("tmp") == 1; })) << "no temporary file for the body";
  c.send(body.substr(body.size() / 2));
  const std::string reply = c.read("}");
  EXPECT_NE(reply.find(" 200 "), std::string::npos) << reply;
  EXPECT_NE(reply.find("\"size\":1048576"), std::string::npos) << reply;
  EXPECT_EQ(get("/media/" + sha + ".bin").body, body);
  EXPECT_TRUE(eventually_ok([&] { return files_in("tmp") == 0; }));
}

// Bodies in flight are bounded per pubkey (429) and across the relay (503).
TEST_F(UploadLimitsTest, BytesInFlightAreBoundedPerPubkeyAndAcrossTheRelay) {
  relay_ = start({"--open", "--upload-bytes-per-pubkey", "1048576", "--upload-bytes-in-flight", "1572864"});
  ASSERT_TRUE(relay_);
  const std::string body(800 << 10, 'q');
  const std::string sha = sha256_hex(body);
  RawConnection first(relay_->port());
  first.send(head(alice_, sha, body.size()) + body.substr(0, 1000));
  ASSERT_TRUE(eventually_ok([&] { return files_in("tmp") == 1; }));

  RawConnection again(relay_->port());
  again.send(head(alice_, sha, body.size()));
  const std::string mine = again.read("}");
  EXPECT_NE(mine.find(" 429 "), std::string::npos) << mine;
  EXPECT_NE(mine.find("too many bytes of your uploads in progress (max 1048576)"), std::string::npos) << mine;

  const Keypair bob = engine::generate_keypair();
  RawConnection other(relay_->port());
  other.send(head(bob, sha, body.size()));
  const std::string relay_full = other.read("}");
  EXPECT_NE(relay_full.find(" 503 "), std::string::npos) << relay_full;
  EXPECT_NE(relay_full.find("too many bytes of uploads in progress on the relay"), std::string::npos) << relay_full;

  // Once the first is answered, its bytes are free again.
  first.send(body.substr(1000));
  EXPECT_NE(first.read("}").find(" 200 "), std::string::npos);
  EXPECT_EQ(upload(std::string(300 << 10, 'r'), bob).status, 200);
  EXPECT_EQ(metric(*relay_, "buzz_media_upload_budget_refusals_total"), 2);
}

// A body that trickles in under the minimum rate is refused with 408 (it used
// to be kept for as long as it gained 1 KiB per 30 s).
TEST_F(UploadLimitsTest, AnUploadUnderTheMinimumRateIsRefused) {
  relay_ = start({"--open", "--ping-interval", "1", "--min-upload-rate", "8192"});
  ASSERT_TRUE(relay_);
  const std::string body(1 << 20, 't');
  const std::string sha = sha256_hex(body);
  RawConnection c(relay_->port());
  c.send(head(alice_, sha, body.size()));
  std::string reply;
  for (size_t sent = 0; sent < 10 * 2048 && reply.empty(); sent += 2048) {  // 10 s at most
    if (!c.try_send(body.substr(sent, 2048))) break;
    reply = c.read("}", 1000);  // 2 KiB a second
  }
  if (reply.empty()) reply = c.read("}");
  EXPECT_NE(reply.find(" 408 "), std::string::npos) << reply;
  EXPECT_NE(reply.find("upload too slow: under 8192 bytes per second"), std::string::npos) << reply;
  EXPECT_TRUE(eventually_ok([&] { return files_in("tmp") == 0; }));
  EXPECT_EQ(metric(*relay_, "buzz_uploads_too_slow_total"), 1);
}

}  // namespace
}  // namespace buzz::test
