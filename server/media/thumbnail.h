// An image's thumbnail (docs/reference/media.md §4): flattened onto white (JPEG has no alpha;
// Buzz decision), shrunk by area averaging to fit a box while keeping its
// aspect ratio (never enlarged), and encoded as a JPEG.
#pragma once

#include <string>

#include "engine/result.h"
#include "server/media/image_pixels.h"

namespace buzz::server {

inline constexpr uint32_t kThumbnailBox = 320;
inline constexpr int kThumbnailQuality = 75;

// Opaque pixels no larger than box × box.
Pixels fit_within(const Pixels& image, uint32_t box);

// A baseline JPEG of opaque pixels.
engine::Result<std::string> encode_jpeg(const Pixels& image, int quality);

}  // namespace buzz::server
