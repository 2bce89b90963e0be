// Unit tests for server/byte_range (docs/reference/media.md §6.3): no Range or a multi-range
// value serves the whole object; S-E, S- and -N become one clamped, capped
// range; everything that does not parse or cannot be satisfied is 416.
#include "server/media/byte_range.h"

#include <gtest/gtest.h>

namespace buzz::server {
namespace {

using Kind = ByteRange::Kind;

ByteRange partial(uint64_t first, uint64_t last) { return {Kind::kPartial, first, last}; }
const ByteRange kWhole{};
const ByteRange kNone{Kind::kUnsatisfiable, 0, 0};

TEST(ByteRange, WholeObject) {
  EXPECT_EQ(resolve_byte_range("", 100), kWhole);
  EXPECT_EQ(resolve_byte_range("bytes=0-1,5-6", 100), kWhole);
}

TEST(ByteRange, SingleRanges) {
  EXPECT_EQ(resolve_byte_range("bytes=0-9", 100), partial(0, 9));
  EXPECT_EQ(resolve_byte_range("bytes=10-", 100), partial(10, 99));
  EXPECT_EQ(resolve_byte_range("bytes=90-1000", 100), partial(90, 99));  // clamped
  EXPECT_EQ(resolve_byte_range("bytes=99-99", 100), partial(99, 99));
  EXPECT_EQ(resolve_byte_range("bytes=-10", 100), partial(90, 99));
  EXPECT_EQ(resolve_byte_range("bytes=-1000", 100), partial(0, 99));
}

TEST(ByteRange, ChunksAreCapped) {
  EXPECT_EQ(resolve_byte_range("bytes=0-", 100, 16), partial(0, 15));
  EXPECT_EQ(resolve_byte_range("bytes=-50", 100, 16), partial(50, 65));
  EXPECT_EQ(resolve_byte_range("bytes=0-", 64ull << 20), partial(0, kMaxRangeChunk - 1));
}

// Found by tests/fuzz/byte_range_fuzz: the chunk's end was first + chunk - 1,
// which wrapped past 2^64 and ended the range before it began.
TEST(ByteRange, ChunkCapNearTheTopOfTheOffsetRange) {
  constexpr uint64_t kHuge = UINT64_MAX - 10;
  EXPECT_EQ(resolve_byte_range("bytes=-500", kHuge, 1 << 20), partial(kHuge - 500, kHuge - 1));
  EXPECT_EQ(resolve_byte_range("bytes=-500", kHuge, 100), partial(kHuge - 500, kHuge - 401));
}

TEST(ByteRange, Unsatisfiable) {
  for (const char* h : {"bytes=100-", "bytes=100-200", "bytes=5-4", "bytes=-0", "items=0-1", "bytes=", "bytes=5",
                        "bytes=a-b", "bytes= 0-1", "bytes=+1-2", "bytes=0--1", "bytes=99999999999999999999-"}) {
    EXPECT_EQ(resolve_byte_range(h, 100), kNone) << h;
  }
  EXPECT_EQ(resolve_byte_range("bytes=-5", 0), kNone);
  EXPECT_EQ(resolve_byte_range("bytes=0-", 0), kNone);
}

}  // namespace
}  // namespace buzz::server
