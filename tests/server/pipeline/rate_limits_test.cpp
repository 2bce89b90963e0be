// Unit tests for server/rate_limits: the GCRA of RateCounters (the burst, the
// rate after it, keys counted apart, the bound on keys), the
// audit debounce, and which kinds count as messages (docs/reference/protocol.md §14).
#include "server/pipeline/rate_limits.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

engine::Pubkey limit_key(uint8_t b) {
  engine::Pubkey pk{};
  pk.fill(b);
  return pk;
}

constexpr uint64_t kSec = 1000;  // acquire() takes milliseconds

TEST(RateCounters, AllowsTheBurstThenOneUsePerInterval) {
  RateCounters counters;
  const engine::Rate rate{3, 60, 3};  // three at once, then one every 20 s
  const uint64_t t = 6000 * kSec;
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kMessages, rate, t).allowed) << i;
  RateCounters::Outcome refused = counters.acquire(limit_key(1), RateLimit::kMessages, rate, t);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 20u);
  EXPECT_FALSE(counters.acquire(limit_key(1), RateLimit::kMessages, rate, t + 19 * kSec).allowed);
  // A refusal is not counted: one more use 20 s on, then the next interval.
  EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kMessages, rate, t + 20 * kSec).allowed);
  EXPECT_FALSE(counters.acquire(limit_key(1), RateLimit::kMessages, rate, t + 21 * kSec).allowed);
  // Idle for a minute: the whole burst again.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kMessages, rate, t + 100 * kSec).allowed);
}

TEST(RateCounters, ABurstOfTwiceTheRateIsTheMessagesDefault) {
  RateLimitConfig config;
  const engine::Rate human = config.messages(Tier::kHuman);
  EXPECT_EQ(human.per_window, 60u);
  EXPECT_EQ(human.burst, 120u);
  RateCounters counters;
  int allowed = 0;
  for (int i = 0; i < 200; ++i) allowed += counters.acquire(limit_key(1), RateLimit::kMessages, human, 5000 * kSec).allowed;
  EXPECT_EQ(allowed, 120);
  EXPECT_EQ(counters.acquire(limit_key(1), RateLimit::kMessages, human, 5000 * kSec).retry_after, 1u);
}

TEST(RateCounters, KeysAndLimitsAreCountedApart) {
  RateCounters counters;
  const engine::Rate one{1, 60, 1};
  EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kMessages, one, 100 * kSec).allowed);
  EXPECT_FALSE(counters.acquire(limit_key(1), RateLimit::kMessages, one, 100 * kSec).allowed);
  EXPECT_TRUE(counters.acquire(limit_key(2), RateLimit::kMessages, one, 100 * kSec).allowed);
  EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kApiCalls, one, 100 * kSec).allowed);
}

TEST(RateCounters, ZeroMeansNoLimit) {
  RateCounters counters;
  const engine::Rate none{0, 60, 0};
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kApiCalls, none, 100 * kSec).allowed);
}

TEST(RateCounters, AClockThatGoesBackDoesNotLockAKeyOut) {
  RateCounters counters;
  const engine::Rate one{1, 60, 1};
  EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kMessages, one, 1000 * kSec).allowed);
  EXPECT_FALSE(counters.acquire(limit_key(1), RateLimit::kMessages, one, 1001 * kSec).allowed);
  EXPECT_TRUE(counters.acquire(limit_key(1), RateLimit::kMessages, one, 900 * kSec).allowed);
}

TEST(RateCounters, StaysBoundedByForgettingKeys) {
  RateCounters counters(16);  // one key per shard
  const engine::Rate one{1, 60, 1};
  // Keys whose second byte agrees modulo 16 share a shard.
  const engine::Pubkey a = limit_key(1), b = limit_key(17);
  EXPECT_TRUE(counters.acquire(a, RateLimit::kMessages, one, 100 * kSec).allowed);
  EXPECT_FALSE(counters.acquire(a, RateLimit::kMessages, one, 100 * kSec).allowed);
  // b takes a's place: bounded before exact, so a starts over.
  EXPECT_TRUE(counters.acquire(b, RateLimit::kMessages, one, 100 * kSec).allowed);
  EXPECT_TRUE(counters.acquire(a, RateLimit::kMessages, one, 100 * kSec).allowed);
  EXPECT_TRUE(counters.acquire(b, RateLimit::kMessages, one, 100 * kSec).allowed);
}

TEST(RateCounters, AuditsAtMostOncePerMinutePerKeyAndLimit) {
  RateCounters counters;
  EXPECT_TRUE(counters.audit_due(limit_key(1), RateLimit::kWsEvents, 1000));
  EXPECT_FALSE(counters.audit_due(limit_key(1), RateLimit::kWsEvents, 1001));
  EXPECT_FALSE(counters.audit_due(limit_key(1), RateLimit::kWsEvents, 1059));
  EXPECT_TRUE(counters.audit_due(limit_key(1), RateLimit::kMessages, 1001));
  EXPECT_TRUE(counters.audit_due(limit_key(2), RateLimit::kWsEvents, 1001));
  EXPECT_TRUE(counters.audit_due(limit_key(1), RateLimit::kWsEvents, 1060));
}

TEST(RateLimits, MessageKinds) {
  for (uint32_t k : {1u, 7u, 9u, 40002u, 40005u, 40008u, 45001u, 45002u, 45003u}) EXPECT_TRUE(counts_as_message(k)) << k;
  for (uint32_t k : {0u, 3u, 5u, 8u, 10u, 9000u, 9007u, 20001u, 20002u, 40001u, 40009u, 45000u, 45004u, 30023u}) {
    EXPECT_FALSE(counts_as_message(k)) << k;
  }
}

TEST(RateLimits, TierAndLimitNames) {
  for (Tier t : {Tier::kHuman, Tier::kAgentStandard, Tier::kAgentElevated, Tier::kAgentPlatform}) {
    EXPECT_EQ(parse_tier(tier_name(t)), t);
  }
  EXPECT_EQ(parse_tier("Human"), std::nullopt);
  EXPECT_EQ(rate_limit_name(RateLimit::kMessages), "msg");
  EXPECT_EQ(rate_limit_name(RateLimit::kApiCalls), "api");
  EXPECT_EQ(rate_limit_name(RateLimit::kWsEvents), "ws");
  EXPECT_EQ(rate_limit_name(RateLimit::kMint), "mint");
}

}  // namespace
}  // namespace buzz::server
