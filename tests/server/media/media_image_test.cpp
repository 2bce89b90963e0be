// The media room's image work (docs/reference/media.md §4): each decoder on a file made by
// the codec libraries, refusals of truncated and over-large files, the
// thumbnail's size and alpha flattening, and blurhash against known answers
// computed by the reference JavaScript package (npm `blurhash` 2.0).
#include <gtest/gtest.h>
#include <turbojpeg.h>

#include "server/media/blurhash.h"
#include "server/media/image_pixels.h"
#include "server/media/thumbnail.h"
#include "tests/test_images.h"

namespace buzz::server {
namespace {

constexpr uint64_t kMax = 25'000'000;

Pixels image(uint32_t w, uint32_t h, auto&& color) {
  Pixels p{w, h, std::vector<uint8_t>(size_t(w) * h * 4)};
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      auto [r, g, b] = color(x, y);
      uint8_t* px = &p.rgba[(size_t(y) * w + x) * 4];
      px[0] = uint8_t(r), px[1] = uint8_t(g), px[2] = uint8_t(b), px[3] = 255;
    }
  }
  return p;
}

const uint8_t* at(const Pixels& p, uint32_t x, uint32_t y) { return &p.rgba[(size_t(y) * p.width + x) * 4]; }

// The reference JavaScript package scales the AC terms by their largest signed
// value; the C original and the Rust crate the original relay uses, by their
// largest magnitude, as we do. The known answers are images whose largest AC
// term is positive, where both agree.
TEST(MediaImage, BlurhashMatchesTheReferenceImplementation) {
  using Rgb = std::array<uint32_t, 3>;
  EXPECT_EQ(blurhash(image(32, 24, [](uint32_t x, uint32_t y) { return Rgb{255 - x * 8, 255 - y * 10, 255 - (x + y) * 4}; }), 4, 3),
            "L;Hx~O}0$8xHqCogjukBgffkfQfk");
  EXPECT_EQ(blurhash(image(20, 10, [](uint32_t x, uint32_t y) { return Rgb{x < 10 ? 250u : 20u, y < 5 ? 240u : 30u, 128}; }), 4, 3),
            "L~LE18}EwxKNy,s.jtX7gcfjfQfj");
  EXPECT_EQ(blurhash(image(4, 4, [](uint32_t, uint32_t) { return Rgb{200, 100, 50}; }), 4, 3), "LlM|T9}XfQ}X}XxFfQxFfQfQfQfQ");
  EXPECT_EQ(blurhash(Pixels{}, 4, 3), "");
}

TEST(MediaImage, EachFormatDecodes) {
  for (auto [mime, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"image/png", test::make_png(40, 30)},
           {"image/png", test::make_rgba_png(40, 30, true)},
           {"image/jpeg", test::make_jpeg(40, 30)},
           {"image/webp", test::make_webp(40, 30, true)},
           {"image/gif", test::make_animated_gif(40, 30)}}) {
    SCOPED_TRACE(mime);
    auto p = decode_image(mime, bytes, kMax);
    ASSERT_TRUE(p) << p.error();
    EXPECT_EQ(p->width, 40u);
    EXPECT_EQ(p->height, 30u);
    EXPECT_EQ(p->rgba.size(), 40u * 30 * 4);
  }
  // The GIF's first frame: red inside a transparent border.
  auto gif = decode_image("image/gif", test::make_animated_gif(40, 30), kMax);
  ASSERT_TRUE(gif);
  EXPECT_EQ(at(*gif, 0, 0)[3], 0);
  EXPECT_EQ(at(*gif, 5, 5)[0], 255);
  EXPECT_EQ(at(*gif, 5, 5)[2], 0);
  // The tiny transparent GIF the e2e tests upload.
  EXPECT_TRUE(decode_image("image/gif", test::tiny_gif(), kMax));
}

TEST(MediaImage, HostileFilesAreRefused) {
  const std::string jpeg = test::make_jpeg(64, 64), png = test::make_png(64, 64), webp = test::make_webp(64, 64),
                    gif = test::make_animated_gif(64, 64);
  for (auto [mime, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"image/jpeg", jpeg.substr(0, jpeg.size() / 2)},
           {"image/png", png.substr(0, png.size() - 20)},
           {"image/webp", webp.substr(0, webp.size() / 2)},
           {"image/gif", gif.substr(0, 40)},
           {"image/jpeg", test::jpeg_header(64, 64)},
           {"image/png", test::png_header_only(5000, 5000)},
           {"image/png", "not a png at all"},
           {"image/bmp", "BM"}}) {
    SCOPED_TRACE(mime + " of " + std::to_string(bytes.size()) + " bytes");
    EXPECT_FALSE(decode_image(mime, bytes, kMax));
  }
  // More pixels than allowed: refused before the decoder allocates them.
  for (auto [mime, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"image/jpeg", jpeg}, {"image/png", png}, {"image/webp", webp}, {"image/gif", gif}}) {
    auto p = decode_image(mime, bytes, 64 * 64 - 1);
    ASSERT_FALSE(p) << mime;
    EXPECT_NE(p.error().find("too many pixels"), std::string::npos) << p.error();
  }
}

TEST(MediaImage, ThumbnailsFitTheBoxKeepTheAspectAndNeverGrow) {
  auto size_of = [](uint32_t w, uint32_t h) {
    Pixels t = fit_within(Pixels{w, h, std::vector<uint8_t>(size_t(w) * h * 4, 255)}, kThumbnailBox);
    return std::pair{t.width, t.height};
  };
  EXPECT_EQ(size_of(1000, 500), (std::pair{320u, 160u}));
  EXPECT_EQ(size_of(480, 640), (std::pair{240u, 320u}));
  EXPECT_EQ(size_of(100, 50), (std::pair{100u, 50u}));
  EXPECT_EQ(size_of(5000, 1), (std::pair{320u, 1u}));
  EXPECT_EQ(size_of(1, 5000), (std::pair{1u, 320u}));
}

TEST(MediaImage, TransparencyIsFlattenedOntoWhite) {
  auto png = decode_image("image/png", test::make_rgba_png(640, 480, true), kMax);
  ASSERT_TRUE(png);
  Pixels t = fit_within(*png, kThumbnailBox);
  ASSERT_EQ(t.width, 320u);
  ASSERT_EQ(t.height, 240u);
  EXPECT_EQ(at(t, 10, 10)[0], 255);  // the transparent half is white
  EXPECT_EQ(at(t, 10, 10)[1], 255);
  EXPECT_EQ(at(t, 10, 10)[2], 255);
  EXPECT_EQ(at(t, 300, 10)[2], 0x80);  // the opaque half keeps its colour
  for (size_t i = 3; i < t.rgba.size(); i += 4) ASSERT_EQ(t.rgba[i], 255);
  // The JPEG is a real one of that size.
  auto jpeg = encode_jpeg(t, kThumbnailQuality);
  ASSERT_TRUE(jpeg) << jpeg.error();
  auto back = decode_image("image/jpeg", *jpeg, kMax);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->width, 320u);
  EXPECT_EQ(back->height, 240u);
  EXPECT_GE(at(*back, 10, 10)[0], 250);
}

}  // namespace
}  // namespace buzz::server
