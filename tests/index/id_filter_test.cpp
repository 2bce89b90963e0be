// Unit tests for index/id_filter: no id that was inserted is ever missed, across
// stage growth, and ids never inserted are rarely reported.
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

TEST(IdFilterTest, EveryInsertedIdIsFoundAcrossGrowth) {
  std::mt19937_64 rng(7);
  IdFilter filter;
  std::vector<engine::Id> ids;
  for (int i = 0; i < 300'000; ++i) {  // past the first three stages (65,536, 131,072, 262,144)
    ids.push_back(random_id(rng));
    filter.insert(ids.back());
  }
  for (const engine::Id& id : ids) ASSERT_TRUE(filter.may_contain(id));
}

TEST(IdFilterTest, AbsentIdsAreRarelyReported) {
  std::mt19937_64 rng(11);
  IdFilter filter;
  for (int i = 0; i < 100'000; ++i) filter.insert(random_id(rng));
  int false_positives = 0;
  for (int i = 0; i < 100'000; ++i) false_positives += filter.may_contain(random_id(rng));
  EXPECT_LT(false_positives, 1000);  // under 1 %
}

TEST(IdFilterTest, CounterLikeIdsSpreadToo) {
  // Ids that differ in a few bytes only are hashed, not used as bits directly.
  IdFilter filter;
  auto id_of = [](uint32_t n) {
    engine::Id id{};
    id[0] = uint8_t(n >> 16), id[1] = uint8_t(n >> 8), id[2] = uint8_t(n);
    return id;
  };
  for (uint32_t n = 0; n < 50'000; ++n) filter.insert(id_of(n));
  int false_positives = 0;
  for (uint32_t n = 50'000; n < 150'000; ++n) false_positives += filter.may_contain(id_of(n));
  EXPECT_LT(false_positives, 1000);
}

TEST(IdFilterTest, ClearForgetsEverything) {
  std::mt19937_64 rng(3);
  IdFilter filter;
  engine::Id id = random_id(rng);
  EXPECT_FALSE(filter.may_contain(id));
  filter.insert(id);
  EXPECT_TRUE(filter.may_contain(id));
  filter.clear();
  EXPECT_FALSE(filter.may_contain(id));
}

}  // namespace
}  // namespace buzz::index
