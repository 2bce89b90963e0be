// The rolling window of server/pipeline/rate_limiter.h (the token mints'
// 50 an hour, docs/reference/rest-api.md §3.1) on explicit times: the limit, the wait
// a refusal states, a use leaving the window one at a time, keys apart, and
// the bound on keys.
#include "server/pipeline/rate_limiter.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

// Keys told apart by their first byte.
const engine::Pubkey kLimiterKeyA{1}, kLimiterKeyB{2}, kLimiterKeyC{3}, kLimiterKeyD{4};

TEST(RateLimiter, AllowsTheLimitInAWindowThenStatesTheWait) {
  RateLimiter limiter(3, 3600);
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 1000), 0u);
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 1100), 0u);
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 1200), 0u);
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 1300), 3300u);  // until the first use leaves the window
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 4599), 1u);
}

TEST(RateLimiter, TheWindowRollsOneUseAtATimeAndRefusalsAreNotCounted) {
  RateLimiter limiter(2, 60);
  ASSERT_EQ(limiter.acquire(kLimiterKeyA, 0), 0u);
  ASSERT_EQ(limiter.acquire(kLimiterKeyA, 30), 0u);
  for (uint64_t t = 31; t < 60; t += 7) EXPECT_GT(limiter.acquire(kLimiterKeyA, t), 0u) << t;
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 60), 0u);  // the use at 0 has left
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 61), 29u);  // the one at 30 has not
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 90), 0u);
}

TEST(RateLimiter, KeysAreCountedApart) {
  RateLimiter limiter(1, 60);
  EXPECT_EQ(limiter.acquire(kLimiterKeyA, 10), 0u);
  EXPECT_GT(limiter.acquire(kLimiterKeyA, 10), 0u);
  EXPECT_EQ(limiter.acquire(kLimiterKeyB, 10), 0u);
}

TEST(RateLimiter, StaysBoundedDroppingSpentKeysFirstThenTheOldest) {
  RateLimiter limiter(1, 60, 2);
  ASSERT_EQ(limiter.acquire(kLimiterKeyA, 0), 0u);
  ASSERT_EQ(limiter.acquire(kLimiterKeyB, 50), 0u);
  // Full: A's window has passed at 70, so A goes and B keeps its use.
  ASSERT_EQ(limiter.acquire(kLimiterKeyC, 70), 0u);
  EXPECT_GT(limiter.acquire(kLimiterKeyB, 70), 0u);
  // Full again, nothing spent: the oldest (B) is forgotten, so it may use again.
  ASSERT_EQ(limiter.acquire(kLimiterKeyD, 80), 0u);
  EXPECT_EQ(limiter.acquire(kLimiterKeyB, 81), 0u);
}

}  // namespace
}  // namespace buzz::server
