// IntervalClock (docs/reference/workflows.md §4.2, Buzz decision): an interval schedule fires
// one interval after it is first seen, then every interval; a restart keeps the
// clock through the newest schedule run; a workflow no longer listed starts over.
#include "server/workflows/interval_clock.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

const auto kNoRun = [] { return std::optional<uint64_t>(); };

TEST(IntervalClock, FirstFireIsOneIntervalAfterFirstSeen) {
  IntervalClock clock;
  EXPECT_FALSE(clock.due("w", 60, 1000, kNoRun));
  EXPECT_FALSE(clock.due("w", 60, 1059, kNoRun));
  EXPECT_TRUE(clock.due("w", 60, 1060, kNoRun));
  EXPECT_FALSE(clock.due("w", 60, 1061, kNoRun));  // marked at the fire
  EXPECT_FALSE(clock.due("w", 60, 1119, kNoRun));
  EXPECT_TRUE(clock.due("w", 60, 1125, kNoRun));   // a late tick fires once, then counts from itself
  EXPECT_FALSE(clock.due("w", 60, 1180, kNoRun));
  EXPECT_TRUE(clock.due("w", 60, 1185, kNoRun));
}

TEST(IntervalClock, ARestartKeepsTheClockThroughTheNewestScheduleRun) {
  IntervalClock clock;
  int asked = 0;
  auto last_run = [&] {
    ++asked;
    return std::optional<uint64_t>(900);
  };
  EXPECT_TRUE(clock.due("w", 60, 1000, last_run));  // 100 s since the last run: due at once
  EXPECT_FALSE(clock.due("w", 60, 1030, last_run));
  EXPECT_EQ(asked, 1);  // asked only when first seen
  IntervalClock fresh;
  EXPECT_FALSE(fresh.due("w", 3600, 1000, last_run));
  EXPECT_TRUE(fresh.due("w", 3600, 4500, last_run));
}

TEST(IntervalClock, WorkflowsNoLongerListedStartOver) {
  IntervalClock clock;
  EXPECT_FALSE(clock.due("a", 60, 1000, kNoRun));
  EXPECT_FALSE(clock.due("b", 60, 1000, kNoRun));
  clock.keep_only({"b"});
  EXPECT_FALSE(clock.due("a", 60, 1060, kNoRun));  // seen anew at 1060
  EXPECT_TRUE(clock.due("b", 60, 1060, kNoRun));
  EXPECT_TRUE(clock.due("a", 60, 1120, kNoRun));
}

TEST(IntervalClock, AMarkAheadOfNowCountsFromNow) {
  IntervalClock clock;  // a run stamped in the future: the system clock was set back since
  EXPECT_FALSE(clock.due("w", 60, 1000, [] { return std::optional<uint64_t>(5000); }));
  EXPECT_FALSE(clock.due("w", 60, 1059, kNoRun));
  EXPECT_TRUE(clock.due("w", 60, 1060, kNoRun));
}

}  // namespace
}  // namespace buzz::server
