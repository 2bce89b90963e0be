// The rolling window of server/pipeline/rate_limiter.h (the token mints'
// 50 an hour, docs/reference/rest-api.md §3.1) on explicit times: the limit, the wait
// a refusal states, a use leaving the window one at a time, keys apart, and
// the bound on keys.
#include "server/pipeline/rate_limiter.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

engine::Pubkey limiter_key(uint8_t b) {
  engine::Pubkey pk{};
  pk.fill(b);
  return pk;
}

TEST(RateLimiter, AllowsTheLimitInAWindowThenStatesTheWait) {
  RateLimiter limiter(3, 3600);
  EXPECT_EQ(limiter.acquire(limiter_key(1), 1000), 0u);
  EXPECT_EQ(limiter.acquire(limiter_key(1), 1100), 0u);
  EXPECT_EQ(limiter.acquire(limiter_key(1), 1200), 0u);
  EXPECT_EQ(limiter.acquire(limiter_key(1), 1300), 3300u);  // until the first use leaves the window
  EXPECT_EQ(limiter.acquire(limiter_key(1), 4599), 1u);
}

TEST(RateLimiter, TheWindowRollsOneUseAtATimeAndRefusalsAreNotCounted) {
  RateLimiter limiter(2, 60);
  ASSERT_EQ(limiter.acquire(limiter_key(1), 0), 0u);
  ASSERT_EQ(limiter.acquire(limiter_key(1), 30), 0u);
  for (uint64_t t = 31; t < 60; t += 7) EXPECT_GT(limiter.acquire(limiter_key(1), t), 0u) << t;
  EXPECT_EQ(limiter.acquire(limiter_key(1), 60), 0u);  // the use at 0 has left
  EXPECT_EQ(limiter.acquire(limiter_key(1), 61), 29u);  // the one at 30 has not
  EXPECT_EQ(limiter.acquire(limiter_key(1), 90), 0u);
}

TEST(RateLimiter, KeysAreCountedApart) {
  RateLimiter limiter(1, 60);
  EXPECT_EQ(limiter.acquire(limiter_key(1), 10), 0u);
  EXPECT_GT(limiter.acquire(limiter_key(1), 10), 0u);
  EXPECT_EQ(limiter.acquire(limiter_key(2), 10), 0u);
}

TEST(RateLimiter, StaysBoundedDroppingSpentKeysFirstThenTheOldest) {
  RateLimiter limiter(1, 60, 2);
  ASSERT_EQ(limiter.acquire(limiter_key(1), 0), 0u);
  ASSERT_EQ(limiter.acquire(limiter_key(2), 50), 0u);
  // Full: key 1's window has passed at 70, so it goes and key 2 keeps its use.
  ASSERT_EQ(limiter.acquire(limiter_key(3), 70), 0u);
  EXPECT_GT(limiter.acquire(limiter_key(2), 70), 0u);
  // Full again, nothing spent: the oldest (key 2) is forgotten, so it may use again.
  ASSERT_EQ(limiter.acquire(limiter_key(4), 80), 0u);
  EXPECT_EQ(limiter.acquire(limiter_key(2), 81), 0u);
}

}  // namespace
}  // namespace buzz::server
