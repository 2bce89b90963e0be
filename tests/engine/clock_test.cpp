// Unit tests for engine/clock: seconds_from, which every created_at window
// (AUTH ±60 s, ingest ±900 s, admin ±120 s, NIP-98, Blossom) measures with,
// over the whole range of an unsigned created_at.
#include "engine/clock.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace buzz::engine {
namespace {

constexpr uint64_t kClockNow = 1'733'220'000;
constexpr uint64_t k2To63 = uint64_t(1) << 63;

TEST(SecondsFrom, SignedDistanceNearNow) {
  EXPECT_EQ(seconds_from(kClockNow, kClockNow), 0);
  EXPECT_EQ(seconds_from(kClockNow, kClockNow + 60), 60);
  EXPECT_EQ(seconds_from(kClockNow, kClockNow - 60), -60);
  EXPECT_EQ(seconds_from(kClockNow, 0), -int64_t(kClockNow));
}

// 2^63 + now used to come out as -2^63, whose absolute value is undefined and
// was negative in practice, so such an event passed every "within N seconds"
// check (tests/e2e: *Beyond2To63*).
TEST(SecondsFrom, SaturatesSoTheAbsoluteValueAlwaysExists) {
  for (uint64_t t : {k2To63 + kClockNow, k2To63, k2To63 - 1 + kClockNow, UINT64_MAX}) {
    int64_t d = seconds_from(kClockNow, t);
    EXPECT_GT(d, int64_t(1) << 62) << t;
    EXPECT_GT(std::llabs(d), 900) << t;
  }
  EXPECT_EQ(seconds_from(UINT64_MAX, 0), -INT64_MAX);
  EXPECT_EQ(seconds_from(0, UINT64_MAX), INT64_MAX);
  EXPECT_EQ(std::llabs(seconds_from(UINT64_MAX, 0)), INT64_MAX);
}

}  // namespace
}  // namespace buzz::engine
