// End-to-end tests of the relay's two protections against load it cannot
// serve (docs/reference/protocol.md §5.4, docs/reference/compat-backends.md §6.1): the connection cap, which
// answers the connection past it with a plain HTTP 503 and serves again once
// one closes, and the bounded send queue, which closes a subscriber that stops
// reading (1008) after three consecutive events found its queue full, while the
// publisher and other readers carry on. The metrics port counts both. And
// back-pressure (issue 20): a relay whose store, audit log or full-text index
// falls behind stops reading from the senders of EVENTs instead of refusing them, and so
// does one whose answers to a connection pile up while that client reads none.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/nostr_client.h"
#include "tests/e2e/raw_connection.h"
#include "tests/e2e/relay_process.h"

namespace buzz::test {
namespace {

using engine::Keypair;

int64_t counter(uint16_t metrics_port, const std::string& name) {
  return metric_value(http_get(metrics_port, "/metrics").body, name);
}

std::unique_ptr<RelayProcess> start_backpressured(std::vector<std::string> args, uint16_t metrics_port) {
  args.insert(args.end(), {"--open", "--rate-limits", "false", "--metrics-port", std::to_string(metrics_port)});
  std::string error;
  auto relay = RelayProcess::start(RelayOptions{args, {}, ""}, &error);
  EXPECT_NE(relay, nullptr) << error;
  return relay;
}

TEST(BackpressureTest, ConnectionPastTheCapIsRefusedWith503UntilOneCloses) {
  const uint16_t metrics = free_tcp_port();
  auto relay = start_backpressured({"--max-connections", "2"}, metrics);
  ASSERT_TRUE(relay);
  std::string error;
  auto first = NostrClient::connect(*relay, &error);
  ASSERT_TRUE(first) << error;
  // The start-up probe's connection counts until the relay has seen it close,
  // which a loaded machine may not have done yet: a refusal then is the cap
  // doing its job, so try again for a while (a cap off by one fails anyway).
  std::unique_ptr<NostrClient> second;
  for (int i = 0; i < 50 && !second; ++i) {
    second = NostrClient::connect_authed(*relay, engine::generate_keypair(), &error);
    if (!second) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(second) << error;
  const int64_t refused_before = counter(metrics, "buzz_connections_refused_total");

  // Past the cap a connection may still ask for a probe (docs/limits.md, "Connections"): anything
  // else is refused, as is a connection that asks for nothing within a few seconds.
  {
    RawConnection third(relay->port());
    third.send("GET /api/channels HTTP/1.1\r\nHost: x\r\n\r\n");
    std::string refusal = third.read("}");
    EXPECT_EQ(refusal.rfind("HTTP/1.1 503", 0), 0u) << refusal;
    EXPECT_NE(refusal.find(R"({"error":"the relay is at its connection limit, retry later"})"), std::string::npos);
    EXPECT_EQ(counter(metrics, "buzz_connections_refused_total"), refused_before + 1);
  }  // and closes: it counted until then

  first.reset();  // one leaves: the next is served
  std::unique_ptr<NostrClient> again;
  for (int i = 0; i < 50 && !again; ++i) {
    again = NostrClient::connect(*relay, &error);
    if (!again) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(again) << error;
  EXPECT_TRUE(second->req("s", R"({"kinds":[1],"limit":0})").eose) << "the connections inside the cap are unaffected";
}

TEST(BackpressureTest, SubscriberThatStopsReadingIsClosedAndOthersCarryOn) {
  const uint16_t metrics = free_tcp_port();
  auto relay = start_backpressured({"--send-buffer", "4"}, metrics);
  ASSERT_TRUE(relay);
  Keypair author = engine::generate_keypair(), sleepy_key = engine::generate_keypair(),
          reader_key = engine::generate_keypair();
  std::string error;
  auto publisher = NostrClient::connect_authed(*relay, author, &error);
  auto sleepy = NostrClient::connect_authed(*relay, sleepy_key, &error);
  auto reader = NostrClient::connect_authed(*relay, reader_key, &error);
  ASSERT_TRUE(publisher && sleepy && reader) << error;
  const std::string filter = R"({"kinds":[1],"authors":[")" + hex(author) + R"("],"limit":0})";
  ASSERT_TRUE(sleepy->req("live", filter).eose);
  ASSERT_TRUE(reader->req("live", filter).eose);

  // 60 KB events until the sleepy client's socket buffers, then its queue,
  // are full; the reader keeps up, so it never falls behind.
  const std::string body(60000, 'x');
  int published = 0;
  for (; published < 1000 && counter(metrics, "buzz_ws_backpressure_disconnects_total") == 0; ++published) {
    ASSERT_TRUE(publisher->publish(make_event(author, 1, body + std::to_string(published))).accepted) << published;
    auto live = reader->wait_for([](const RelayMessage& m) { return m.type == "EVENT"; });
    ASSERT_TRUE(live) << "the reader missed event " << published;
  }
  EXPECT_EQ(counter(metrics, "buzz_ws_backpressure_disconnects_total"), 1) << "after " << published << " events";

  // The sleepy client finds what was buffered for it, then the 1008 close.
  while (sleepy->ws().recv(2000)) {
  }
  EXPECT_TRUE(sleepy->ws().closed());
  EXPECT_EQ(sleepy->ws().close_code(), 1008);
  EXPECT_TRUE(publisher->publish(make_event(author, 1, "still here")).accepted);
  EXPECT_TRUE(reader->wait_for([](const RelayMessage& m) { return m.type == "EVENT" && m.event.content == "still here"; }));
}

// Queues this small fill within milliseconds under four pipelining writers:
// without back-pressure the writer refused most of these events ("busy" or
// "audit backlog full"). With it, the senders are paused, every EVENT is
// stored and answered OK true, and a reader on another connection is answered
// meanwhile.
TEST(BackpressureTest, SustainedIngestPastTheWritersPaceSlowsSendersAndRefusesNothing) {
  const uint16_t metrics = free_tcp_port();
  auto relay = start_backpressured({"--max-concurrent-handlers", "16", "--audit-queue", "8"}, metrics);
  ASSERT_TRUE(relay);
  constexpr int kWriters = 4, kEvents = 300, kWindow = 48;
  std::atomic<int> refused{0}, answered{0};
  std::vector<Keypair> keys;
  for (int w = 0; w < kWriters; ++w) keys.push_back(engine::generate_keypair());
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::string error;
      auto c = NostrClient::connect_authed(*relay, keys[size_t(w)], &error);
      ASSERT_TRUE(c) << error;
      std::vector<std::string> ids;
      size_t acked = 0;
      // A refusal (or a NOTICE instead of an OK) ends this writer: the test has failed.
      auto take_ok = [&] {
        OkReply ok = c->wait_ok(ids[acked++], 10000);
        if (ok.accepted) return ++answered, true;
        ++refused;
        ADD_FAILURE() << "refused: " << ok.reason;
        return false;
      };
      for (int i = 0; i < kEvents; ++i) {
        engine::Event e = make_event(keys[size_t(w)], 1, "sustained " + std::to_string(i));
        ids.push_back(e.id_hex());
        ASSERT_TRUE(c->send(R"(["EVENT",)" + e.raw + "]"));
        if (ids.size() - acked >= kWindow && !take_ok()) return;
      }
      while (acked < ids.size()) {
        if (!take_ok()) return;
      }
    });
  }
  // A reader is answered while the writers are held back.
  std::string error;
  auto reader = NostrClient::connect_authed(*relay, engine::generate_keypair(), &error);
  ASSERT_TRUE(reader) << error;
  const std::string past = std::to_string(unix_now() - 3600);  // history only: no live events to fall behind on
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(reader->req("r" + std::to_string(i), R"({"kinds":[1],"limit":5,"until":)" + past + "}").eose)
        << "a reader stalled";
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(answered.load(), kWriters * kEvents);
  EXPECT_EQ(refused.load(), 0);
  EXPECT_GT(counter(metrics, "buzz_ingest_paused_total"), 0) << "the writers were never held back";
  for (const Keypair& k : keys) {
    auto n = reader->count("n", R"({"kinds":[1],"authors":[")" + hex(k) + R"("]})");
    ASSERT_TRUE(n);
    EXPECT_EQ(n->count, kEvents);
  }
}

// The full-text indexer's queue holds ingest back too (its backlog re-reads
// each event from the store, dearer than indexing it): with room for 16, the
// writers are paused although the store writer's queue (1,024) and the audit
// log's never pass half, and every event is indexed, none from the backlog
// but what came while the writers were being paused.
TEST(BackpressureTest, IngestPastTheIndexersPaceIsHeldBackAndEverythingIsIndexed) {
  const uint16_t metrics = free_tcp_port();
  auto relay = start_backpressured({"--search-queue", "16"}, metrics);
  ASSERT_TRUE(relay);
  constexpr int kWriters = 4, kEvents = 300, kWindow = 48;
  std::vector<std::thread> writers;
  std::atomic<int> accepted{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      Keypair key = engine::generate_keypair();
      std::string error;
      auto c = NostrClient::connect_authed(*relay, key, &error);
      ASSERT_TRUE(c) << error;
      std::vector<std::string> ids;
      size_t acked = 0;
      for (int i = 0; i < kEvents; ++i) {
        engine::Event e = make_event(key, 1, "tapir sighting " + std::to_string(i));
        ids.push_back(e.id_hex());
        ASSERT_TRUE(c->send(R"(["EVENT",)" + e.raw + "]"));
        while (ids.size() - acked >= kWindow) accepted += c->wait_ok(ids[acked++], 10000).accepted;
      }
      while (acked < ids.size()) accepted += c->wait_ok(ids[acked++], 10000).accepted;
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(accepted.load(), kWriters * kEvents);
  EXPECT_GT(counter(metrics, "buzz_ingest_paused_total"), 0) << "the indexer never held the writers back";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (counter(metrics, "buzz_search_lag_ms") > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(counter(metrics, "buzz_search_indexed_total"), kWriters * kEvents);
  EXPECT_EQ(counter(metrics, "buzz_search_backlog"), 0);
  EXPECT_EQ(counter(metrics, "buzz_search_index_errors_total"), 0);
}

// A test harness looping over send before it reads anything: its OKs pile up
// faster than it takes them. Closing it as a slow consumer (1008), as live
// fan-out would be, lost the OKs of events already stored; instead the relay
// stops reading it past the live queue limit and resumes as the OKs drain, so
// its sends block (TCP) and every EVENT is answered.
TEST(BackpressureTest, BurstSentWithoutReadingTheAnswersIsSlowedNotClosed) {
  const uint16_t metrics = free_tcp_port();
  // Without an fsync per batch the OKs come faster than the kernel buffers them.
  auto relay = start_backpressured({"--sync-writes", "false"}, metrics);
  ASSERT_TRUE(relay);
  const Keypair key = engine::generate_keypair();
  std::string error;
  auto c = NostrClient::connect_authed(*relay, key, &error);
  ASSERT_TRUE(c) << error;
  c->ws().set_auto_pong(false);  // the writer thread owns the sending side
  constexpr int kEvents = 10000;
  std::vector<std::string> frames;
  for (int i = 0; i < kEvents; ++i) frames.push_back(R"(["EVENT",)" + make_event(key, 1, "burst " + std::to_string(i)).raw + "]");
  std::atomic<int> sent{0};
  std::thread writer([&] {
    for (const std::string& f : frames) {
      if (!c->send(f)) return;
      ++sent;
    }
  });
  // Reading nothing until the relay has stopped reading this connection.
  const auto paused_by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (counter(metrics, "buzz_ws_answer_pauses_total") == 0 && std::chrono::steady_clock::now() < paused_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int answered = 0, accepted = 0;
  while (answered < kEvents) {
    auto m = c->next_message(10000);
    if (!m) break;
    if (m->type != "OK") continue;
    ++answered;
    accepted += m->accepted;
  }
  writer.join();
  EXPECT_EQ(sent.load(), kEvents);
  EXPECT_EQ(answered, kEvents);
  EXPECT_EQ(accepted, kEvents);
  EXPECT_FALSE(c->ws().closed()) << "closed with " << c->ws().close_code();
  EXPECT_GT(counter(metrics, "buzz_ws_answer_pauses_total"), 0) << "the burst never filled the queue";
  EXPECT_EQ(counter(metrics, "buzz_ws_backpressure_disconnects_total"), 0);
}

}  // namespace
}  // namespace buzz::test
