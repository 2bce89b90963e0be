// End-to-end tests of the relay as its operator sees it: the HTTP surface
// (health, metrics, NIP-11), durability across SIGKILL, and the port check.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/open_relay_fixture.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using engine::Event;
using engine::Keypair;

// Whether one of the process's threads has this name (/proc/PID/task/*/comm).
bool process_has_thread(pid_t pid, const std::string& name) {
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (std::getline(comm, line) && line == name) return true;
  }
  return false;
}

// --- HTTP surface ------------------------------------------------------------------

TEST_F(OpenRelayTest, HealthAnswers200) {
  HttpReply r = http_get(relay().port(), "/health");
  EXPECT_EQ(r.status, 200);
}

TEST_F(OpenRelayTest, MetricsCountEventsAndTrackSubscriptions) {
  HttpReply before = http_get(relay().port(), "/metrics");
  ASSERT_EQ(before.status, 200);
  EXPECT_EQ(before.headers["content-type"], "text/plain; version=0.0.4");
  for (const char* name : {"buzz_events_accepted_total", "buzz_ws_connections_active", "buzz_audit_entries_written_total",
                           "buzz_subscriptions_active", "buzz_store_writer_queue", "buzz_store_batches_total",
                           "buzz_store_batched_jobs_total", "buzz_events_stored_total", "buzz_ws_connections_total",
                           "buzz_connections_refused_total", "buzz_ws_backpressure_disconnects_total",
                           "buzz_store_block_cache_bytes", "buzz_store_table_readers_bytes",
                           "buzz_allocator_allocated_bytes", "buzz_allocator_held_bytes"}) {
    EXPECT_GE(metric_value(before.body, name), 0) << name << " missing from\n" << before.body;
  }
  // Every family has a memtable from the start, counted against the budget.
  EXPECT_GT(metric_value(before.body, "buzz_store_memtable_bytes"), 0) << before.body;
  // What malloc holds, read from the allocator itself: jemalloc unless the build says otherwise
  // (the sanitizers' allocator answers glibc's mallinfo2 with zeros).
  EXPECT_GE(metric_value(before.body, "buzz_allocator_held_bytes"), metric_value(before.body, "buzz_allocator_allocated_bytes"));
#if BUZZ_JEMALLOC
  EXPECT_EQ(metric_value(before.body, "buzz_allocator_info{allocator=\"jemalloc\"}"), 1) << before.body;
  EXPECT_GT(metric_value(before.body, "buzz_allocator_allocated_bytes"), 1 << 20) << before.body;
  // `buzz serve` turns on jemalloc's background purging (allocator_stats.h).
  EXPECT_TRUE(process_has_thread(relay().pid(), "jemalloc_bg_thd"));
#endif
  Keypair key = engine::generate_keypair();
  auto c = authed_client(relay(), key);
  ASSERT_TRUE(c);
  Event counted = make_event(key, 1, "counted");
  ASSERT_TRUE(c->publish(counted).accepted);
  ASSERT_TRUE(c->req("m", R"({"kinds":[1],"authors":[")" + hex(key) + R"("],"limit":0})").eose);
  ASSERT_EQ(c->publish(counted).reason, "duplicate:");
  EXPECT_FALSE(c->publish(make_event(key, 1617, "unknown kind")).accepted);
  HttpReply during = http_get(relay().port(), "/metrics");
  EXPECT_EQ(metric_value(during.body, "buzz_events_accepted_total"),
            metric_value(before.body, "buzz_events_accepted_total") + 2);
  EXPECT_GE(metric_value(during.body, "buzz_events_stored_total"),
            metric_value(before.body, "buzz_events_stored_total") + 1);
  EXPECT_GE(metric_value(during.body, "buzz_ws_connections_total"),
            metric_value(before.body, "buzz_ws_connections_total") + 1);
  auto received = [](const std::string& body, const std::string& kind) {
    return std::max<int64_t>(0, metric_value(body, "buzz_events_received_total{kind=\"" + kind + "\"}"));
  };
  EXPECT_EQ(received(during.body, "1"), received(before.body, "1") + 2);
  EXPECT_EQ(received(during.body, "other"), received(before.body, "other") + 1);
  // The publish (and the AUTH's audit record) went through at least one batch.
  int64_t batches = metric_value(during.body, "buzz_store_batches_total") - metric_value(before.body, "buzz_store_batches_total");
  int64_t jobs = metric_value(during.body, "buzz_store_batched_jobs_total") -
                 metric_value(before.body, "buzz_store_batched_jobs_total");
  EXPECT_GE(batches, 1);
  EXPECT_GE(jobs, batches);
  EXPECT_EQ(metric_value(during.body, "buzz_subscriptions_active"),
            metric_value(before.body, "buzz_subscriptions_active") + 1);
  EXPECT_GE(metric_value(during.body, "buzz_ws_connections_active"), 1);
  c.reset();  // closing the connection drops its subscription
  for (int i = 0; i < 50 && metric_value(http_get(relay().port(), "/metrics").body, "buzz_subscriptions_active") !=
                                metric_value(before.body, "buzz_subscriptions_active");
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(metric_value(http_get(relay().port(), "/metrics").body, "buzz_subscriptions_active"),
            metric_value(before.body, "buzz_subscriptions_active"));
}

TEST_F(OpenRelayTest, InfoServesNip11Document) {
  // /info is the relay's document whatever it accepts; / is too unless a browser
  // asks for text/html without nostr+json (docs/reference/rest-api.md §3.15; the web client's
  // page is tested in tests/web).
  const std::vector<std::pair<const char*, const char*>> requests = {
      {"/info", "application/nostr+json"}, {"/", "application/nostr+json"}, {"/info", ""}, {"/", ""},
      {"/", "*/*"}, {"/info", "text/html"}, {"/", "application/nostr+json, text/html"}};
  for (const auto& [path, accept] : requests) {
    SCOPED_TRACE(std::string(path) + " Accept: " + accept);
    HttpReply r = http_get(relay().port(), path, accept);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.headers["content-type"], "application/nostr+json");
    EXPECT_EQ(r.headers["access-control-allow-origin"], "*");
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_FALSE(parser.parse(r.body).get(doc)) << r.body;
    std::string_view name;
    EXPECT_FALSE(doc["name"].get_string().get(name));
    EXPECT_EQ(name, "Buzz Relay");
    std::vector<int64_t> nips;
    for (auto n : doc["supported_nips"].get_array()) nips.push_back(int64_t(n));
    for (int64_t nip : {1, 11, 40, 42, 45, 50, 77}) {
      EXPECT_NE(std::find(nips.begin(), nips.end(), nip), nips.end()) << "NIP " << nip;
    }
    EXPECT_EQ(std::find(nips.begin(), nips.end(), 43), nips.end()) << "43 is only for closed relays";
    auto lim = doc["limitation"];
    EXPECT_EQ(int64_t(lim["max_message_length"]), 131072);
    EXPECT_EQ(int64_t(lim["max_subscriptions"]), 1024);
    EXPECT_EQ(int64_t(lim["max_filters"]), 10);
    EXPECT_EQ(int64_t(lim["max_limit"]), 500);
    EXPECT_EQ(int64_t(lim["max_subid_length"]), 256);
    EXPECT_EQ(bool(lim["auth_required"]), true);
  }
}

// ---------------------------------------------------------------------------
// Durability: a SIGKILLed relay restarted on the same data dir still has
// every event it acknowledged.

TEST(RelayRestartTest, AcknowledgedEventSurvivesSigkillAndRestart) {
  auto first = start_relay(open_relay_options());
  ASSERT_TRUE(first);
  Keypair key = engine::generate_keypair();
  Event e = make_event(key, 1, "durable");
  Event profile = make_event(key, 0, R"({"name":"durable"})");
  {
    auto c = authed_client(*first, key);
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->publish(e).accepted);
    ASSERT_TRUE(c->publish(profile).accepted);
  }
  first->kill_hard();

  RelayOptions again = open_relay_options();
  again.data_dir = first->data_dir();  // kept until `first` is destroyed
  auto second = start_relay(again);
  ASSERT_TRUE(second);
  auto c = authed_client(*second, key);
  ASSERT_TRUE(c);
  ReqResult r = c->req("after", R"({"kinds":[0,1],"authors":[")" + hex(key) + R"("]})");
  ASSERT_TRUE(r.eose) << why(r);
  std::vector<std::string> got = ids_of(r.events);
  std::sort(got.begin(), got.end());
  std::vector<std::string> want = {e.id_hex(), profile.id_hex()};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  OkReply dup = c->publish(e);
  EXPECT_TRUE(dup.accepted);
  EXPECT_EQ(dup.reason, "duplicate:");
}

// A second server on a port a relay already listens on is refused at start:
// SO_REUSEPORT would otherwise let the kernel split connections between them.
TEST(RelayStartTest, SecondServerOnTheSamePortRefusesToStart) {
  auto first = start_relay(open_relay_options());
  ASSERT_TRUE(first);
  std::string dir = first->data_dir() + "-second";
  // `timeout` ends a server that did start (status 124) instead of hanging the test.
  int status = -1;
  const std::string out = run_command(std::string("timeout 10 ") + std::getenv("BUZZ_BINARY") + " serve --open --bind 127.0.0.1:" +
                                          std::to_string(first->port()) + " --data-dir " + dir,
                                      &status);
  ASSERT_NE(status, -1) << out;  // it exited
  EXPECT_NE(status, 0) << out;
  EXPECT_NE(status, 124) << "the second server started:\n" << out;
  EXPECT_NE(out.find("cannot listen on 127.0.0.1:" + std::to_string(first->port())), std::string::npos) << out;
  EXPECT_NE(out.find("another server"), std::string::npos) << out;
  EXPECT_EQ(http_get(first->port(), "/health").status, 200);  // the first one is untouched
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace buzz::test
