// Blurhash (docs/reference/media.md §4: 4 × 3 components, from the thumbnail's pixels): the
// image's low frequencies in sRGB-linear space, quantized and written in
// base 83. The algorithm is the published one (blurha.sh); the known-answer
// tests compare with its reference JavaScript package.
#pragma once

#include <string>

#include "server/media/image_pixels.h"

namespace buzz::server {

// components_x, components_y in 1..9; "" for an empty image.
std::string blurhash(const Pixels& image, int components_x, int components_y);

}  // namespace buzz::server
