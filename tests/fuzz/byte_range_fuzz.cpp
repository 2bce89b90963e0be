// Fuzz target: the Range header of GET /media/<sha256> (RFC 9110 §14).
//
// The first eight bytes are the object's size; the rest is the header. A
// partial range must lie inside the object and be at most one chunk long.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "server/media/byte_range.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint64_t total;
  std::memcpy(&total, data, 8);
  total >>= data[0] % 64;  // small sizes as often as huge ones
  std::string_view header(reinterpret_cast<const char*>(data + 8), size - 8);
  constexpr uint64_t kChunk = 1 << 20;
  auto range = buzz::server::resolve_byte_range(header, total, kChunk);
  if (range.kind == buzz::server::ByteRange::Kind::kPartial) {
    FUZZ_CHECK(range.first <= range.last && range.last < total);
    FUZZ_CHECK(range.last - range.first < kChunk);
  }
  return 0;
}
