#include "server/media/blurhash.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

namespace buzz::server {
namespace {

constexpr std::string_view kBase83 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";

void append_base83(std::string& out, uint32_t value, int digits) {
  for (int i = digits - 1; i >= 0; --i) {
    uint32_t divisor = 1;
    for (int k = 0; k < i; ++k) divisor *= 83;
    out += kBase83[(value / divisor) % 83];
  }
}

double to_linear(uint8_t v) {
  const double x = v / 255.0;
  return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
}

uint32_t to_srgb(double v) {
  v = std::clamp(v, 0.0, 1.0);
  const double s = v <= 0.0031308 ? v * 12.92 : 1.055 * std::pow(v, 1 / 2.4) - 0.055;
  return uint32_t(std::trunc(s * 255 + 0.5));
}

double signed_sqrt(double v) { return std::copysign(std::sqrt(std::abs(v)), v); }

}  // namespace

std::string blurhash(const Pixels& image, int components_x, int components_y) {
  const uint32_t w = image.width, h = image.height;
  if (w == 0 || h == 0 || components_x < 1 || components_x > 9 || components_y < 1 || components_y > 9) return "";
  // The pixels in linear light, once.
  std::vector<std::array<double, 3>> linear(size_t(w) * h);
  for (size_t i = 0; i < linear.size(); ++i) {
    for (int c = 0; c < 3; ++c) linear[i][size_t(c)] = to_linear(image.rgba[i * 4 + size_t(c)]);
  }
  std::vector<std::array<double, 3>> factors;
  for (int j = 0; j < components_y; ++j) {
    for (int i = 0; i < components_x; ++i) {
      const double norm = (i == 0 && j == 0) ? 1.0 : 2.0;
      std::array<double, 3> f{0, 0, 0};
      for (uint32_t y = 0; y < h; ++y) {
        const double by = std::cos(std::numbers::pi * j * y / h);
        for (uint32_t x = 0; x < w; ++x) {
          const double basis = std::cos(std::numbers::pi * i * x / w) * by;
          const auto& px = linear[size_t(y) * w + x];
          for (int c = 0; c < 3; ++c) f[size_t(c)] += basis * px[size_t(c)];
        }
      }
      for (double& v : f) v *= norm / (double(w) * h);
      factors.push_back(f);
    }
  }
  std::string out;
  append_base83(out, uint32_t((components_x - 1) + (components_y - 1) * 9), 1);
  double max_ac = 1;
  if (factors.size() > 1) {
    double actual = 0;
    for (size_t k = 1; k < factors.size(); ++k) {
      for (double v : factors[k]) actual = std::max(actual, std::abs(v));
    }
    const int quantized = int(std::clamp(std::floor(actual * 166 - 0.5), 0.0, 82.0));
    max_ac = (quantized + 1) / 166.0;
    append_base83(out, uint32_t(quantized), 1);
  } else {
    append_base83(out, 0, 1);
  }
  const auto& dc = factors[0];
  append_base83(out, (to_srgb(dc[0]) << 16) + (to_srgb(dc[1]) << 8) + to_srgb(dc[2]), 4);
  for (size_t k = 1; k < factors.size(); ++k) {
    uint32_t value = 0;
    for (double v : factors[k]) {
      const double q = std::clamp(std::floor(signed_sqrt(v / max_ac) * 9 + 9.5), 0.0, 18.0);
      value = value * 19 + uint32_t(q);
    }
    append_base83(out, value, 2);
  }
  return out;
}

}  // namespace buzz::server
