#include "server/media/thumbnail.h"

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace buzz::server {

Pixels fit_within(const Pixels& image, uint32_t box) {
  const double scale = std::min({1.0, double(box) / image.width, double(box) / image.height});
  Pixels out;
  out.width = std::max(1u, uint32_t(std::lround(image.width * scale)));
  out.height = std::max(1u, uint32_t(std::lround(image.height * scale)));
  out.rgba.resize(size_t(out.width) * out.height * 4);
  // Each output pixel averages the source block it covers (at least one pixel),
  // every source pixel first composed over white.
  for (uint32_t ty = 0; ty < out.height; ++ty) {
    const uint32_t y0 = uint32_t(uint64_t(ty) * image.height / out.height);
    const uint32_t y1 = std::max(y0 + 1, uint32_t(uint64_t(ty + 1) * image.height / out.height));
    for (uint32_t tx = 0; tx < out.width; ++tx) {
      const uint32_t x0 = uint32_t(uint64_t(tx) * image.width / out.width);
      const uint32_t x1 = std::max(x0 + 1, uint32_t(uint64_t(tx + 1) * image.width / out.width));
      uint64_t sum[3] = {0, 0, 0};
      for (uint32_t y = y0; y < y1; ++y) {
        const uint8_t* px = &image.rgba[(size_t(y) * image.width + x0) * 4];
        for (uint32_t x = x0; x < x1; ++x, px += 4) {
          const uint32_t a = px[3];
          for (int c = 0; c < 3; ++c) sum[c] += (px[c] * a + 255 * (255 - a) + 127) / 255;
        }
      }
      const uint64_t n = uint64_t(y1 - y0) * (x1 - x0);
      uint8_t* o = &out.rgba[(size_t(ty) * out.width + tx) * 4];
      for (int c = 0; c < 3; ++c) o[c] = uint8_t((sum[c] + n / 2) / n);
      o[3] = 255;
    }
  }
  return out;
}

engine::Result<std::string> encode_jpeg(const Pixels& image, int quality) {
  std::unique_ptr<void, int (*)(tjhandle)> tj(tjInitCompress(), tjDestroy);
  if (!tj) return engine::Error{"jpeg: no encoder"};
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  if (tjCompress2(tj.get(), image.rgba.data(), int(image.width), 0, int(image.height), TJPF_RGBA, &jpeg, &size,
                  TJSAMP_420, quality, 0) != 0) {
    tjFree(jpeg);
    return engine::Error{std::string("jpeg: ") + tjGetErrorStr2(tj.get())};
  }
  std::string out(reinterpret_cast<const char*>(jpeg), size);
  tjFree(jpeg);
  return out;
}

}  // namespace buzz::server
