// The pixels of an uploaded image (docs/reference/media.md §3.2 step 6, §4): JPEG through
// libjpeg-turbo, PNG through libpng, WebP through libwebp (an animation's
// first frame through its demuxer), GIF through giflib (the first frame,
// composed on its logical screen). Always RGBA, 8 bits a channel.
//
// Hostile input: every decoder is told the most pixels it may produce and
// refuses more before it allocates (the header check of image_info.h bounds
// what the file claims; this bounds what the decoder would really make), and a
// truncated or malformed file is an error, never a partial image.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/result.h"

namespace buzz::server {

struct Pixels {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;  // width × height × 4, rows top to bottom
};

// `mime` is one of image/jpeg, image/png, image/gif, image/webp.
engine::Result<Pixels> decode_image(std::string_view mime, std::string_view bytes, uint64_t max_pixels);

}  // namespace buzz::server
