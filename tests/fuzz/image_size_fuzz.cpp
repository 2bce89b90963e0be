// Fuzz target: reading an uploaded image's width and height (docs/reference/media.md §3.2).
//
// The first byte picks the format the bytes were sniffed as; the rest is the
// upload. Any bytes must give a size or nothing, never a read past the end.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/image_info.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kMimes[] = {"image/png", "image/gif", "image/jpeg", "image/webp"};
  std::string_view mime = kMimes[data[0] % std::size(kMimes)];
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  (void)buzz::engine::read_image_size(mime, bytes);
  return 0;
}
