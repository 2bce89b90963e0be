// Fuzz target: decoding an uploaded image and making its thumbnail and
// blurhash (docs/reference/media.md §3.2 step 6, §4), through libjpeg-turbo, libpng, libwebp
// and giflib. The first byte picks the format the bytes were sniffed as; the
// rest is the upload. Any bytes give pixels of the size announced or an
// error, and the thumbnail of any pixels fits its box.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/media/blurhash.h"
#include "server/media/image_pixels.h"
#include "server/media/thumbnail.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kMimes[] = {"image/png", "image/gif", "image/jpeg", "image/webp"};
  std::string_view mime = kMimes[data[0] % std::size(kMimes)];
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  constexpr uint64_t kMaxPixels = 4'000'000;  // smaller than the relay's, to keep runs fast
  auto pixels = buzz::server::decode_image(mime, bytes, kMaxPixels);
  if (!pixels) return 0;
  FUZZ_CHECK(uint64_t(pixels->width) * pixels->height <= kMaxPixels);
  FUZZ_CHECK(pixels->rgba.size() == size_t(pixels->width) * pixels->height * 4);
  buzz::server::Pixels thumb = buzz::server::fit_within(*pixels, buzz::server::kThumbnailBox);
  FUZZ_CHECK(thumb.width >= 1 && thumb.width <= buzz::server::kThumbnailBox);
  FUZZ_CHECK(thumb.height >= 1 && thumb.height <= buzz::server::kThumbnailBox);
  FUZZ_CHECK(buzz::server::blurhash(thumb, 4, 3).size() == 28);
  return 0;
}
