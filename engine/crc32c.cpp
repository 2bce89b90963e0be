// CRC-32C; see crc32c.h.
#include "engine/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace buzz::engine {
namespace {

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kTable = make_table();

#if defined(__x86_64__)
// Eight bytes per instruction; the binary is built for baseline x86-64, so this
// one function is compiled for SSE4.2 and chosen at run time.
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const uint8_t* p, size_t len, uint32_t crc) {
  uint64_t c = ~crc;
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  uint32_t c32 = uint32_t(c);
  for (; len > 0; ++p, --len) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}

// Set by a static initializer, which may run before libgcc's own CPU probe:
// __builtin_cpu_init makes the answer valid then too.
const bool kHaveSse42 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2") != 0;
}();
#endif

}  // namespace

uint32_t crc32c_portable(const void* data, size_t len, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < len; ++i) crc = kTable[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

uint32_t crc32c(const void* data, size_t len, uint32_t crc) {
#if defined(__x86_64__)
  if (kHaveSse42) return crc32c_sse42(static_cast<const uint8_t*>(data), len, crc);
#endif
  return crc32c_portable(data, len, crc);
}

}  // namespace buzz::engine
