// Unit tests for engine/mime_sniff: libmagic names the four image types from
// their bytes whatever they claim to be, an executable is named as one, and
// text, random bytes and nothing at all have no type (nullopt). Each thread
// has its own cookie.
#include "engine/mime_sniff.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "tests/test_images.h"

namespace buzz::engine {
namespace {

std::optional<std::string> sniff(std::string_view bytes) {
  auto r = sniff_mime(bytes);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : std::nullopt;
}

TEST(MimeSniff, Images) {
  EXPECT_EQ(sniff(test::make_png(16, 16)), "image/png");
  EXPECT_EQ(sniff(test::tiny_gif()), "image/gif");
  EXPECT_EQ(sniff(test::jpeg_header(8, 8)), "image/jpeg");
  EXPECT_EQ(sniff(test::webp_header("VP8 ", 8, 8)), "image/webp");
}

TEST(MimeSniff, Executable) {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::string elf(kSniffBytes, '\0');
  in.read(elf.data(), std::streamsize(elf.size()));
  std::optional<std::string> type = sniff(elf);
  ASSERT_TRUE(type);
  // From its first 64 KiB libmagic cannot tell a PIE from a shared library.
  EXPECT_TRUE(*type == "application/x-executable" || *type == "application/x-pie-executable" ||
              *type == "application/x-sharedlib")
      << *type;
}

TEST(MimeSniff, NoSignatureIsUnknown) {
  EXPECT_EQ(sniff(""), std::nullopt);
  EXPECT_EQ(sniff("just some plain text\n"), std::nullopt);
  EXPECT_EQ(sniff(std::string("\x01\x02\x03\x04\xfe\xfd\x00\x10", 8)), std::nullopt);
}

TEST(MimeSniff, EveryThreadCanSniff) {
  std::optional<std::string> other;
  std::thread t([&] { other = sniff(test::tiny_gif()); });
  t.join();
  EXPECT_EQ(other, "image/gif");
  EXPECT_EQ(sniff(test::tiny_gif()), "image/gif");
}

}  // namespace
}  // namespace buzz::engine
