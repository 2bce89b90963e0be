// Unit tests for engine/image_info: the dimensions of each of the four
// formats from its header (PNG IHDR, GIF screen, JPEG SOFn after other
// segments and fill bytes, WebP VP8 / VP8L / VP8X), and nullopt — fail closed —
// for truncated, malformed and zero-sized headers and for other types.
#include "engine/image_info.h"

#include <gtest/gtest.h>

#include "tests/test_images.h"

namespace buzz::engine {
namespace {

using test::jpeg_header;
using test::webp_header;

TEST(ImageInfo, Png) {
  EXPECT_EQ(read_image_size("image/png", test::make_png(16, 9)), (ImageSize{16, 9}));
  EXPECT_EQ(read_image_size("image/png", test::png_header_only(100000, 3)), (ImageSize{100000, 3}));
}

TEST(ImageInfo, Gif) { EXPECT_EQ(read_image_size("image/gif", test::tiny_gif()), (ImageSize{1, 1})); }

TEST(ImageInfo, Jpeg) {
  EXPECT_EQ(read_image_size("image/jpeg", jpeg_header(640, 480)), (ImageSize{640, 480}));
  // A DHT segment (C4, not a frame), fill bytes and a restart marker come first.
  std::string j = jpeg_header(33, 44);
  j.insert(2, std::string("\xFF\xC4\x00\x04\x00\x00\xFF\xFF\xFF\xD0", 10));
  EXPECT_EQ(read_image_size("image/jpeg", j), (ImageSize{33, 44}));
  // A progressive frame (SOF2) counts too.
  std::string progressive = jpeg_header(7, 8);
  progressive[progressive.find("\xFF\xC0") + 1] = char(0xC2);
  EXPECT_EQ(read_image_size("image/jpeg", progressive), (ImageSize{7, 8}));
}

TEST(ImageInfo, WebP) {
  EXPECT_EQ(read_image_size("image/webp", webp_header("VP8 ", 300, 200)), (ImageSize{300, 200}));
  EXPECT_EQ(read_image_size("image/webp", webp_header("VP8L", 16383, 1)), (ImageSize{16383, 1}));
  EXPECT_EQ(read_image_size("image/webp", webp_header("VP8X", 20000, 12345)), (ImageSize{20000, 12345}));
}

TEST(ImageInfo, TruncatedHeadersFailClosed) {
  for (const auto& [mime, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"image/png", test::make_png(4, 4)},
           {"image/gif", test::tiny_gif()},
           {"image/jpeg", jpeg_header(4, 4)},
           {"image/webp", webp_header("VP8X", 4, 4)}}) {
    std::string_view header = bytes;
    size_t needed = mime == "image/png" ? 24 : mime == "image/gif" ? 10 : mime == "image/jpeg" ? 29 : 30;
    for (size_t n = 0; n < needed; ++n) EXPECT_FALSE(read_image_size(mime, header.substr(0, n))) << mime << " cut at " << n;
  }
}

TEST(ImageInfo, MalformedHeaders) {
  EXPECT_FALSE(read_image_size("image/png", test::png_header_only(0, 5)));  // zero width
  std::string png = test::make_png(2, 2);
  png[12] = 'X';  // the first chunk is not IHDR
  EXPECT_FALSE(read_image_size("image/png", png));
  EXPECT_FALSE(read_image_size("image/gif", "GIF90a\x01\x00\x01\x00"));
  EXPECT_FALSE(read_image_size("image/jpeg", std::string("\xFF\xD8\xFF\xDA\x00\x08", 6) + std::string(20, '\0')));  // scan first
  EXPECT_FALSE(read_image_size("image/jpeg", std::string("\xFF\xD8\x00\xC0", 4) + std::string(20, '\0')));  // not a marker
  std::string vp8 = webp_header("VP8 ", 10, 10);
  vp8[23] = 0;  // bad start code
  EXPECT_FALSE(read_image_size("image/webp", vp8));
  EXPECT_FALSE(read_image_size("image/webp", webp_header("ALPH", 10, 10)));
}

TEST(ImageInfo, OtherTypesAreUnknown) {
  EXPECT_FALSE(read_image_size("image/svg+xml", "<svg/>"));
  EXPECT_FALSE(read_image_size("image/bmp", test::make_png(1, 1)));
}

}  // namespace
}  // namespace buzz::engine
