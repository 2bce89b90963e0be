// The Redis adapters of migrate/ against a real redis-server (the `redis`
// fixture): URL parsing, the local-echo cache, fan-out between two nodes'
// RedisPubSub, presence keys with their 90 s TTL, and rate-limit windows that
// two nodes count in together.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <chrono>
#include <mutex>
#include <thread>

#include "engine/clock.h"
#include "engine/signature.h"
#include "migrate/local_echo_cache.h"
#include "migrate/redis_backends.h"
#include "server/team/presence_store.h"
#include "tests/cluster/redis_test_server.h"
#include "tests/e2e/nostr_client.h"

namespace buzz::test {
namespace {

using namespace std::chrono_literals;
using migrate::RedisReply;

// Waits up to `limit` for pred.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 3000ms) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

// One node's worth of backends, and what its subscriber received.
struct Node {
  server::MemoryPresenceStore local;
  std::unique_ptr<migrate::RedisBackends> redis;
  std::mutex mu;
  std::vector<engine::RemoteEvent> received;

  Node() {
    auto b = migrate::RedisBackends::open(test_redis_url(), local, [](const std::string&) {});
    EXPECT_TRUE(b) << b.error();
    if (!b) return;
    redis = std::move(*b);
    redis->pubsub().start([this](std::vector<engine::RemoteEvent>&& events) {
      std::lock_guard lock(mu);
      for (auto& e : events) received.push_back(std::move(e));
    });
    EXPECT_TRUE(redis->pubsub().wait_subscribed(3000ms)) << "PSUBSCRIBE not confirmed";
  }
  size_t count(const engine::Id& id) {
    std::lock_guard lock(mu);
    return size_t(std::count_if(received.begin(), received.end(), [&](const auto& e) { return e.event->id == id; }));
  }
  std::optional<engine::RemoteEvent> find(const engine::Id& id) {
    std::lock_guard lock(mu);
    for (const auto& e : received) {
      if (e.event->id == id) return e;
    }
    return std::nullopt;
  }
};

TEST(RedisUrlTest, ParsesHostPortPasswordAndDatabase) {
  auto u = migrate::parse_redis_url("redis://:s3cret@10.0.0.5:6380/2");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "10.0.0.5");
  EXPECT_EQ(u->port, 6380);
  EXPECT_EQ(u->password, "s3cret");
  EXPECT_EQ(u->db, 2);
  auto plain = migrate::parse_redis_url("redis://cache");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->host, "cache");
  EXPECT_EQ(plain->port, 6379);
  EXPECT_FALSE(migrate::parse_redis_url("http://cache:6379"));
  EXPECT_FALSE(migrate::parse_redis_url("redis://cache:99999"));
  EXPECT_FALSE(migrate::parse_redis_url("redis://cache:6379/x"));
}

TEST(LocalEchoCacheTest, TakesAnIdOnceAndForgetsItAfterSixtySeconds) {
  migrate::LocalEchoCache cache;
  engine::Id a{}, b{};
  a[0] = 1;
  b[0] = 2;
  auto t0 = migrate::LocalEchoCache::Clock::now();
  cache.insert(a, t0);
  cache.insert(b, t0);
  EXPECT_TRUE(cache.take(a, t0 + 1s));
  EXPECT_FALSE(cache.take(a, t0 + 1s)) << "an echo is skipped once";
  EXPECT_FALSE(cache.take(b, t0 + 61s)) << "older than 60 s";
}

TEST(LocalEchoCacheTest, HoldsAtMostTenThousandIdsOldestLeavingFirst) {
  migrate::LocalEchoCache cache;
  auto t0 = migrate::LocalEchoCache::Clock::now();
  for (uint32_t i = 0; i < 10001; ++i) {
    engine::Id id{};
    std::memcpy(id.data(), &i, sizeof i);
    cache.insert(id, t0);
  }
  EXPECT_EQ(cache.size(), migrate::LocalEchoCache::kCapacity);
  engine::Id first{}, last{};
  uint32_t n = 10000;
  std::memcpy(last.data(), &n, sizeof n);
  EXPECT_FALSE(cache.take(first, t0));
  EXPECT_TRUE(cache.take(last, t0));
}

TEST(RedisPubSubTest, AnEventPublishedOnOneNodeReachesTheOtherOnceAndNotItself) {
  Node a, b;
  ASSERT_TRUE(a.redis && b.redis);
  engine::Keypair key = engine::generate_keypair();
  engine::Event global = make_event(key, 1, "hello from a");
  engine::Event in_channel = make_event(key, 9, "in a channel", {{"h", "b1000000-0000-4000-8000-000000000001"}});
  a.redis->pubsub().publish(global.id, "", global.raw);
  a.redis->pubsub().publish(in_channel.id, "b1000000-0000-4000-8000-000000000001", in_channel.raw);
  ASSERT_TRUE(eventually([&] { return b.count(in_channel.id) == 1; }));
  auto got = b.find(global.id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->channel, "") << "the nil UUID is a global event";
  EXPECT_EQ(got->event->raw, global.raw) << "the JSON as published";
  EXPECT_EQ(b.find(in_channel.id)->channel, "b1000000-0000-4000-8000-000000000001");
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(b.count(global.id), 1u);
  EXPECT_EQ(a.count(global.id), 0u) << "a node's own events are not handed back to it";
  EXPECT_EQ(a.redis->pubsub().counters().echo_skipped.load(), 2u);
}

TEST(RedisPubSubTest, UpstreamsWireFormatIsReadAndMalformedMessagesAreDropped) {
  Node b;
  ASSERT_TRUE(b.redis);
  auto raw = test_redis_connection();
  ASSERT_TRUE(raw);
  engine::Event e = make_event(engine::generate_keypair(), 1, "from an upstream node");
  // What upstream's relay publishes: the bare event JSON on buzz:channel:<uuid|nil>.
  ASSERT_TRUE(raw->command({"PUBLISH", "buzz:channel:not-a-uuid", e.raw}));
  ASSERT_TRUE(raw->command({"PUBLISH", "buzz:channel:00000000-0000-0000-0000-000000000000", "{not json"}));
  ASSERT_TRUE(raw->command({"PUBLISH", "buzz:channel:00000000-0000-0000-0000-000000000000", e.raw}));
  ASSERT_TRUE(eventually([&] { return b.count(e.id) == 1; }));
  EXPECT_EQ(b.redis->pubsub().counters().dropped.load(), 2u);
}

TEST(RedisPubSubTest, TheSubscriberComesBackAfterItsConnectionIsKilled) {
  Node b;
  ASSERT_TRUE(b.redis);
  auto raw = test_redis_connection();
  ASSERT_TRUE(raw);
  // This process's subscriber, by the name it gives itself (other tests' run in parallel).
  auto clients = raw->command({"CLIENT", "LIST", "TYPE", "pubsub"});
  ASSERT_TRUE(clients);
  const std::string name = "name=buzz-subscriber-" + std::to_string(getpid()) + " ";
  size_t at = clients->str.find(name);
  ASSERT_NE(at, std::string::npos) << clients->str;
  size_t line = clients->str.rfind('\n', at);
  line = line == std::string::npos ? 0 : line + 1;
  ASSERT_EQ(clients->str.compare(line, 3, "id="), 0);
  const std::string id = clients->str.substr(line + 3, clients->str.find(' ', line) - line - 3);
  ASSERT_TRUE(raw->command({"CLIENT", "KILL", "ID", id}));
  ASSERT_TRUE(eventually([&] { return b.redis->pubsub().counters().reconnects.load() >= 1; }));
  ASSERT_TRUE(b.redis->pubsub().wait_subscribed(5000ms)) << "not resubscribed after 1 s";
  engine::Event e = make_event(engine::generate_keypair(), 1, "after the reconnect");
  ASSERT_TRUE(raw->command({"PUBLISH", "buzz:channel:00000000-0000-0000-0000-000000000000", e.raw}));
  EXPECT_TRUE(eventually([&] { return b.count(e.id) == 1; }));
}

TEST(RedisPresenceTest, AStatusSetOnOneNodeIsReadOnTheOtherWithANinetySecondTtl) {
  Node a, b;
  ASSERT_TRUE(a.redis && b.redis);
  engine::Keypair who = engine::generate_keypair();
  const uint64_t now = unix_now();
  EXPECT_EQ(b.redis->presence().status(who.pubkey, now), std::nullopt) << "a missing key is offline";
  a.redis->presence().set_status(who.pubkey, "away", now);
  EXPECT_EQ(a.redis->presence().status(who.pubkey, now), "away") << "a node reads its own write";
  EXPECT_TRUE(eventually([&] { return b.redis->presence().status(who.pubkey, now) == "away"; }));
  auto raw = test_redis_connection();
  ASSERT_TRUE(raw);
  auto ttl = raw->command({"TTL", "buzz:presence:" + engine::to_hex(who.pubkey)});
  ASSERT_TRUE(ttl);
  EXPECT_GT(ttl->integer, 85);
  EXPECT_LE(ttl->integer, 90);
  a.redis->presence().set_status(who.pubkey, "offline", now);
  EXPECT_TRUE(eventually([&] { return !b.redis->presence().status(who.pubkey, now); })) << "offline is DEL";
  a.redis->presence().set_status(who.pubkey, "online", now);
  EXPECT_TRUE(a.redis->presence().clear(who.pubkey, now)) << "the local copy held it";
  EXPECT_TRUE(eventually([&] { return !b.redis->presence().status(who.pubkey, now); })) << "the last connection closing is DEL";
}

TEST(RedisRateCounterTest, TwoNodesShareOneBucket) {
  Node a, b;
  ASSERT_TRUE(a.redis && b.redis);
  engine::Keypair who = engine::generate_keypair();
  const std::string key = "buzz:ratelimit:" + engine::to_hex(who.pubkey) + ":msg";
  const engine::Rate rate{10, 60, 10};  // ten at once, then one every 6 s
  // Each use waits for its answer, as a client waiting for OK does.
  auto use = [&](Node& n) {
    engine::RateDecision d = n.redis->rate_counter().acquire(who.pubkey, "msg", rate, engine::unix_now_ms());
    std::this_thread::sleep_for(20ms);
    return d;
  };
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(use(a).allowed);
  int allowed_on_b = 0;
  for (int i = 0; i < 8; ++i) allowed_on_b += use(b).allowed;
  EXPECT_EQ(allowed_on_b, 4) << "b's bucket holds a's six";
  // a last heard of its own six: one more use passes here, and Redis refuses
  // it (the slack of redis_rate_counter.h: one use per node); then a knows.
  engine::RateDecision slack = use(a);
  ASSERT_TRUE(slack.allowed);
  ASSERT_TRUE(slack.ticket);
  EXPECT_FALSE(slack.ticket->allowed_by(std::chrono::steady_clock::now() + 2s));
  engine::RateDecision refused = use(a);
  EXPECT_FALSE(refused.allowed);
  EXPECT_GE(refused.retry_after, 5u);
  EXPECT_LE(refused.retry_after, 6u);
  auto raw = test_redis_connection();
  ASSERT_TRUE(raw);
  auto ttl = raw->command({"PTTL", key});
  ASSERT_TRUE(ttl);
  EXPECT_GT(ttl->integer, 55000) << "ten uses: the bucket is full again in about 60 s";
  EXPECT_LE(ttl->integer, 61000) << "refused uses are not counted";
}

}  // namespace
}  // namespace buzz::test
