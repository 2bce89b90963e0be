// Unit tests for index/id_filter: no document that was inserted is ever said
// to be absent, across generations (the older let go, the horizon raised), and
// ids never inserted are rarely reported; memory stays at two generations.
#include "index/id_filter.h"

#include <gtest/gtest.h>

#include <random>

namespace buzz::index {
namespace {

engine::Id random_id(std::mt19937_64& rng) {
  engine::Id id;
  for (size_t i = 0; i < id.size(); i += 8) {
    uint64_t word = rng();
    for (size_t b = 0; b < 8; ++b) id[i + b] = uint8_t(word >> (8 * b));
  }
  return id;
}

constexpr uint64_t kStart = 1'700'000'000;

TEST(IdFilterTest, EveryInsertedIdIsHeldAcrossGenerations) {
  std::mt19937_64 rng(7);
  IdFilter filter;
  std::vector<engine::Id> ids;
  const size_t n = 4 * IdFilter::kGenerationIds + 1000;  // the first three generations let go
  for (size_t i = 0; i < n; ++i) {
    ids.push_back(random_id(rng));
    filter.insert(ids.back(), kStart + i / 100);  // 100 events a second, in order
  }
  for (size_t i = 0; i < n; ++i) ASSERT_TRUE(filter.may_hold(ids[i], kStart + i / 100)) << i;
  // The horizon covers what was let go, and no more than that.
  EXPECT_EQ(filter.horizon(), kStart + (3 * IdFilter::kGenerationIds - 1) / 100);
  // An id never inserted: as old as the horizon, it may be indexed (the term decides); newer, rarely.
  EXPECT_TRUE(filter.may_hold(random_id(rng), filter.horizon()));
  int false_positives = 0;
  for (int i = 0; i < 10'000; ++i) false_positives += filter.may_hold(random_id(rng), filter.horizon() + 1);
  EXPECT_LT(false_positives, 200);  // two generations probed: under 2 %
}

TEST(IdFilterTest, AnOutOfOrderEventIsHeldByItsGeneration) {
  std::mt19937_64 rng(5);
  IdFilter filter;
  engine::Id late = random_id(rng);
  filter.insert(random_id(rng), kStart + 10);
  filter.insert(late, kStart);  // created before the one added just before it
  for (size_t i = 2; i < IdFilter::kGenerationIds; ++i) filter.insert(random_id(rng), kStart + 5);
  for (size_t i = 0; i < IdFilter::kGenerationIds; ++i) filter.insert(random_id(rng), kStart + 30);
  EXPECT_EQ(filter.horizon(), 0u);
  EXPECT_TRUE(filter.may_hold(late, kStart));  // in the older generation now
  filter.insert(random_id(rng), kStart + 40);
  EXPECT_EQ(filter.horizon(), kStart + 10);  // its generation let go: the newest it held
  EXPECT_TRUE(filter.may_hold(late, kStart));
}

TEST(IdFilterTest, AbsentIdsAreRarelyReported) {
  std::mt19937_64 rng(11);
  IdFilter filter;
  for (int i = 0; i < 100'000; ++i) filter.insert(random_id(rng), kStart);
  int false_positives = 0;
  for (int i = 0; i < 100'000; ++i) false_positives += filter.may_hold(random_id(rng), kStart + 1);
  EXPECT_LT(false_positives, 2000);  // under 2 %
}

TEST(IdFilterTest, CounterLikeIdsSpreadToo) {
  // Ids that differ in a few bytes only are hashed, not used as bits directly.
  IdFilter filter;
  auto id_of = [](uint32_t n) {
    engine::Id id{};
    id[0] = uint8_t(n >> 16), id[1] = uint8_t(n >> 8), id[2] = uint8_t(n);
    return id;
  };
  for (uint32_t n = 0; n < 50'000; ++n) filter.insert(id_of(n), kStart);
  int false_positives = 0;
  for (uint32_t n = 50'000; n < 150'000; ++n) false_positives += filter.may_hold(id_of(n), kStart + 1);
  EXPECT_LT(false_positives, 1000);
}

TEST(IdFilterTest, ResetForgetsEverythingAndSetsTheHorizon) {
  std::mt19937_64 rng(3);
  IdFilter filter;
  engine::Id id = random_id(rng);
  EXPECT_FALSE(filter.may_hold(id, kStart));
  filter.insert(id, kStart);
  EXPECT_TRUE(filter.may_hold(id, kStart));
  filter.reset(0);
  EXPECT_FALSE(filter.may_hold(id, kStart));
  filter.reset(kStart);  // an index opened with documents up to kStart
  EXPECT_TRUE(filter.may_hold(id, kStart));
  EXPECT_FALSE(filter.may_hold(id, kStart + 1));
}

}  // namespace
}  // namespace buzz::index
