// Image dimensions from the file header alone, without decoding a pixel: the
// upload check against pixel bombs (docs/reference/media.md §3.2 step 4) and the descriptor's
// `dim`. Covers the four previewable types; anything it cannot read is refused
// (fail closed), since an image whose size is unknown cannot be bounded.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace buzz::engine {

struct ImageSize {
  uint32_t width = 0;
  uint32_t height = 0;
  bool operator==(const ImageSize&) const = default;
};

// The width and height declared by a PNG (IHDR), GIF (logical screen), JPEG
// (first SOFn frame header) or WebP (VP8, VP8L or VP8X chunk); `mime` says
// which to expect. nullopt for another type, a truncated or malformed header,
// or a zero dimension.
std::optional<ImageSize> read_image_size(std::string_view mime, std::string_view bytes);

}  // namespace buzz::engine
