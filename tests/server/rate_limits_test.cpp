// Unit tests for server/rate_limits: the fixed windows of RateCounters (the
// limit, the window's edge, keys counted apart, the bound on keys), the
// audit debounce, and which kinds count as messages (docs/reference/protocol.md §14).
#include "server/pipeline/rate_limits.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

engine::Pubkey key(uint8_t b) {
  engine::Pubkey pk{};
  pk.fill(b);
  return pk;
}

TEST(RateCounters, AllowsTheLimitPerWindowThenRefusesUntilItEnds) {
  RateCounters counters;
  const uint64_t start = 6000;  // a window of 60 s starts here
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(counters.acquire(key(1), RateLimit::kMessages, 3, 60, start + 10).allowed);
  RateCounters::Outcome refused = counters.acquire(key(1), RateLimit::kMessages, 3, 60, start + 10);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after, 50u);
  EXPECT_FALSE(counters.acquire(key(1), RateLimit::kMessages, 3, 60, start + 59).allowed);
  // A refusal is not counted: the next window starts from zero.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(counters.acquire(key(1), RateLimit::kMessages, 3, 60, start + 60).allowed);
  EXPECT_FALSE(counters.acquire(key(1), RateLimit::kMessages, 3, 60, start + 119).allowed);
}

TEST(RateCounters, KeysAndLimitsAreCountedApart) {
  RateCounters counters;
  EXPECT_TRUE(counters.acquire(key(1), RateLimit::kMessages, 1, 60, 100).allowed);
  EXPECT_FALSE(counters.acquire(key(1), RateLimit::kMessages, 1, 60, 100).allowed);
  EXPECT_TRUE(counters.acquire(key(2), RateLimit::kMessages, 1, 60, 100).allowed);
  EXPECT_TRUE(counters.acquire(key(1), RateLimit::kApiCalls, 1, 60, 100).allowed);
}

TEST(RateCounters, ZeroMeansNoLimit) {
  RateCounters counters;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(counters.acquire(key(1), RateLimit::kApiCalls, 0, 60, 100).allowed);
}

TEST(RateCounters, AClockThatGoesBackStartsAFreshWindow) {
  RateCounters counters;
  EXPECT_TRUE(counters.acquire(key(1), RateLimit::kMessages, 1, 60, 1000).allowed);
  EXPECT_FALSE(counters.acquire(key(1), RateLimit::kMessages, 1, 60, 1001).allowed);
  EXPECT_TRUE(counters.acquire(key(1), RateLimit::kMessages, 1, 60, 900).allowed);
}

TEST(RateCounters, StaysBoundedByForgettingKeys) {
  RateCounters counters(16);  // one key per shard
  // Keys whose second byte agrees modulo 16 share a shard.
  const engine::Pubkey a = key(1), b = key(17);
  EXPECT_TRUE(counters.acquire(a, RateLimit::kMessages, 1, 60, 100).allowed);
  EXPECT_FALSE(counters.acquire(a, RateLimit::kMessages, 1, 60, 100).allowed);
  // b takes a's place: bounded before exact, so a starts over.
  EXPECT_TRUE(counters.acquire(b, RateLimit::kMessages, 1, 60, 100).allowed);
  EXPECT_TRUE(counters.acquire(a, RateLimit::kMessages, 1, 60, 100).allowed);
  EXPECT_TRUE(counters.acquire(b, RateLimit::kMessages, 1, 60, 100).allowed);
}

TEST(RateCounters, AuditsAtMostOncePerMinutePerKeyAndLimit) {
  RateCounters counters;
  EXPECT_TRUE(counters.audit_due(key(1), RateLimit::kWsEvents, 1000));
  EXPECT_FALSE(counters.audit_due(key(1), RateLimit::kWsEvents, 1001));
  EXPECT_FALSE(counters.audit_due(key(1), RateLimit::kWsEvents, 1059));
  EXPECT_TRUE(counters.audit_due(key(1), RateLimit::kMessages, 1001));
  EXPECT_TRUE(counters.audit_due(key(2), RateLimit::kWsEvents, 1001));
  EXPECT_TRUE(counters.audit_due(key(1), RateLimit::kWsEvents, 1060));
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
