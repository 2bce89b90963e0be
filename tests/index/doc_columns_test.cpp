// Unit tests for index/doc_columns: extending keeps every older view intact,
// in place while capacity lasts and through a copy when it runs out.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "index/doc_columns.h"

namespace buzz::index {
namespace {

std::vector<AddedDocument> added(uint64_t first, size_t n) {
  std::vector<AddedDocument> out;
  for (size_t i = 0; i < n; ++i) out.push_back({engine::Id{}, first + i, uint16_t(9 + i % 2)});
  return out;
}

TEST(DocColumnsTest, ExtendingLeavesOlderViewsAsTheyWere) {
  DocColumns empty;
  DocColumns read_back({100, 200}, {9, 1});
  ASSERT_EQ(read_back.size(), 2u);
  EXPECT_EQ(read_back.created_at(1), 200u);
  EXPECT_EQ(read_back.kind(1), 1u);

  std::vector<DocColumns> views{read_back};
  uint64_t next = 1000;
  for (int round = 0; round < 40; ++round) {  // well past the first capacity (1024)
    views.push_back(views.back().extended(added(next, 97)));
    next += 97;
  }
  uint64_t expected = 1000;
  const DocColumns& last = views.back();
  ASSERT_EQ(last.size(), 2u + 40 * 97);
  for (size_t doc = 2; doc < last.size(); ++doc, ++expected) {
    ASSERT_EQ(last.created_at(doc), expected) << doc;
    ASSERT_EQ(last.kind(doc), 9 + (doc - 2) % 97 % 2) << doc;
  }
  for (const DocColumns& view : views) {  // every older view still reads what it had
    ASSERT_EQ(view.created_at(0), 100u);
    if (view.size() > 2) {
      EXPECT_EQ(view.created_at(view.size() - 1), 1000 + view.size() - 3);
    }
  }
  DocColumns from_nothing = empty.extended(added(5, 3));
  EXPECT_EQ(from_nothing.size(), 3u);
  EXPECT_EQ(from_nothing.created_at(2), 7u);
}

// A created_at past 32 bits (an imported event from after 2106, or a hostile
// one) reads back whole, in the view that added it and in every later one,
// while the views before it never see it.
TEST(DocColumnsTest, CreatedAtPastThirtyTwoBitsReadsBackWhole) {
  constexpr uint64_t kFar = (uint64_t(1) << 40) + 7;
  DocColumns read_back({100, kFar, UINT32_MAX, UINT32_MAX - 1}, {1, 2, 3, 4});
  EXPECT_EQ(read_back.created_at(0), 100u);
  EXPECT_EQ(read_back.created_at(1), kFar);
  EXPECT_EQ(read_back.created_at(2), uint64_t(UINT32_MAX));
  EXPECT_EQ(read_back.created_at(3), uint64_t(UINT32_MAX) - 1);
  EXPECT_EQ(read_back.kind(1), 2u);

  std::vector<AddedDocument> more = added(500, 3);
  more[1].created_at = UINT64_MAX;
  DocColumns grown = read_back.extended(more);
  DocColumns later = grown.extended(added(2000, 2000));  // past the capacity: a copy
  for (const DocColumns* view : {&grown, &later}) {
    EXPECT_EQ(view->created_at(1), kFar);
    EXPECT_EQ(view->created_at(2), uint64_t(UINT32_MAX));
    EXPECT_EQ(view->created_at(4), 500u);
    EXPECT_EQ(view->created_at(5), UINT64_MAX);
    EXPECT_EQ(view->created_at(6), 502u);
  }
  EXPECT_EQ(later.created_at(later.size() - 1), 3999u);
  EXPECT_EQ(read_back.size(), 4u);
  EXPECT_EQ(read_back.created_at(2), uint64_t(UINT32_MAX));
}

}  // namespace
}  // namespace buzz::index
