// Which bytes of a media object a GET serves (docs/reference/media.md §6.3): the whole
// object, one range of it, or none (416).
//
// Stricter than RFC 9110 on purpose, as upstream is: a Range header that does
// not parse (another unit, first > last, "-0") is unsatisfiable rather than
// ignored. A multi-range value is ignored (the whole object).
#pragma once

#include <cstdint>
#include <string_view>

namespace buzz::server {

// No chunk is larger than this; a longer range is cut and the client asks again.
inline constexpr uint64_t kMaxRangeChunk = 16 << 20;

struct ByteRange {
  enum class Kind { kWhole, kPartial, kUnsatisfiable };
  Kind kind = Kind::kWhole;
  uint64_t first = 0;  // kPartial: inclusive bounds within the object
  uint64_t last = 0;

  bool operator==(const ByteRange&) const = default;
};

// `header` is the Range header ("" when absent), `total` the object's size.
ByteRange resolve_byte_range(std::string_view header, uint64_t total, uint64_t max_chunk = kMaxRangeChunk);

}  // namespace buzz::server
