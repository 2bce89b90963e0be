// A human connection's frame bucket (server/pipeline/frame_bucket.h), on explicit
// times: the burst, the refill, the ceiling, the wait a refusal states, and a
// replay's charge with its floor.
#include "server/pipeline/frame_bucket.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

constexpr uint32_t kBucketPerSec = 10;
constexpr float kBucketSize = 100;

// Takes until refused at one instant: how many were allowed.
int drain_bucket(FrameBucket& b, int64_t now_ms) {
  int taken = 0;
  while (b.take(now_ms, kBucketPerSec, kBucketSize)) ++taken;
  return taken;
}

TEST(FrameBucket, AFreshBucketAllowsItsWholeSizeAtOnceThenRefuses) {
  FrameBucket b;
  EXPECT_EQ(drain_bucket(b, 1'000), 100);
  EXPECT_FALSE(b.take(1'000, kBucketPerSec, kBucketSize));
}

TEST(FrameBucket, RefillsAtTheRateAndNeverPastItsSize) {
  FrameBucket b;
  drain_bucket(b, 1'000);
  EXPECT_FALSE(b.take(1'050, kBucketPerSec, kBucketSize));  // half a unit back
  EXPECT_TRUE(b.take(1'100, kBucketPerSec, kBucketSize));   // one unit at 10/s
  EXPECT_FALSE(b.take(1'100, kBucketPerSec, kBucketSize));
  EXPECT_EQ(drain_bucket(b, 2'100), 10);       // a second later: ten units, the refusals cost nothing
  EXPECT_EQ(drain_bucket(b, 1'000'000), 100);  // an hour idle fills it to its size, not beyond
}

TEST(FrameBucket, ARefusalStatesTheWholeSecondsUntilAUnitIsBack) {
  FrameBucket b;
  drain_bucket(b, 0);
  EXPECT_EQ(b.wait_secs(kBucketPerSec), 1u);
  b.charge(50, kBucketSize);  // a replay that sent 5,000 events
  EXPECT_FALSE(b.take(0, kBucketPerSec, kBucketSize));
  EXPECT_EQ(b.wait_secs(kBucketPerSec), 6u);  // 51 units at 10/s
}

TEST(FrameBucket, AReplayChargesNoLowerThanMinusItsSize) {
  FrameBucket b;
  ASSERT_TRUE(b.take(0, kBucketPerSec, kBucketSize));
  b.charge(1'000'000, kBucketSize);
  EXPECT_EQ(b.tokens, -kBucketSize);
  EXPECT_EQ(b.wait_secs(kBucketPerSec), 11u);  // 101 units at 10/s: a bounded wait, whatever was replayed
}

TEST(FrameBucket, ABucketNeverUsedIsNotCharged) {
  FrameBucket b;  // limits off or an exempt caller: take() never ran
  b.charge(500, kBucketSize);
  EXPECT_EQ(b.at_ms, -1);
  EXPECT_EQ(drain_bucket(b, 0), 100);
}

}  // namespace
}  // namespace buzz::server
