// Unit tests for index/replay_horizon: a live copy of an event the replay may
// have sent is dropped; every event the replay could not have seen is delivered.
#include "index/replay_horizon.h"

#include <gtest/gtest.h>

namespace buzz::index {
namespace {

engine::Id id_of(uint8_t n) {
  engine::Id id{};
  id[0] = n;
  return id;
}

TEST(ReplayHorizonTest, ANewSubscriptionDropsNothing) {
  ReplayHorizon h;
  EXPECT_FALSE(h.replayed(1, id_of(1)));
  EXPECT_FALSE(h.replayed(0, id_of(1)));
}

TEST(ReplayHorizonTest, BatchesWrittenBeforeTheReplayAreNotDeliveredAgain) {
  ReplayHorizon h;
  h.set(7, 7, {id_of(1)});
  EXPECT_TRUE(h.replayed(6, id_of(9)));
  EXPECT_TRUE(h.replayed(7, id_of(1)));
  EXPECT_FALSE(h.replayed(8, id_of(1)));  // written after: the replay cannot have read it
  EXPECT_FALSE(h.overlapping());          // nothing in flight: no ids held
}

TEST(ReplayHorizonTest, ABatchWrittenDuringTheReplayDropsOnlyWhatTheReplaySent) {
  ReplayHorizon h;
  h.set(7, 9, {id_of(3), id_of(1)});
  ASSERT_TRUE(h.overlapping());
  EXPECT_EQ(h.overlap_until(), 9u);
  EXPECT_TRUE(h.replayed(8, id_of(1)));
  EXPECT_TRUE(h.replayed(9, id_of(3)));
  EXPECT_FALSE(h.replayed(8, id_of(2)));   // in that batch, not in the replay
  EXPECT_FALSE(h.replayed(10, id_of(1)));  // past the overlap
  h.settle(8);
  EXPECT_TRUE(h.overlapping());  // batch 9 may still be on its way
  h.settle(9);
  EXPECT_FALSE(h.overlapping());
  EXPECT_TRUE(h.replayed(7, id_of(9)));
}

TEST(ReplayHorizonTest, EventsOfNoWriteBatchAlwaysPass) {
  ReplayHorizon h;
  h.set(7, 9, {id_of(1)});
  EXPECT_FALSE(h.replayed(0, id_of(1)));  // ephemeral, or another node's
}

}  // namespace
}  // namespace buzz::index
