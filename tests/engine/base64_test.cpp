// Unit tests for engine/base64: the encoders, each decoded back; the lenient
// decoder NIP-98 uses (either
// alphabet, padding optional) and the two strict forms Blossom accepts
// (URL-safe unpadded, standard padded), which refuse the other alphabet,
// wrong padding and stray bits after the last byte.
#include "engine/base64.h"

#include <gtest/gtest.h>

namespace buzz::engine {
namespace {

TEST(Base64, Encodes) {
  EXPECT_EQ(encode_base64(""), "");
  EXPECT_EQ(encode_base64("h"), "aA==");
  EXPECT_EQ(encode_base64("hi"), "aGk=");
  EXPECT_EQ(encode_base64("hello"), "aGVsbG8=");
  EXPECT_EQ(encode_base64(std::string("\xfb\xff\xbf", 3)), "+/+/");
  EXPECT_EQ(encode_base64url_unpadded(std::string("\xfb\xff\xbf", 3)), "-_-_");
  EXPECT_EQ(encode_base64url_unpadded("hello"), "aGVsbG8");
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(char(i));
  for (size_t n = 0; n <= all.size(); n += 37) {
    const std::string bytes = all.substr(0, n);
    EXPECT_EQ(decode_base64_padded(encode_base64(bytes)), bytes) << n;
    EXPECT_EQ(decode_base64url_unpadded(encode_base64url_unpadded(bytes)), bytes) << n;
  }
}

TEST(Base64, Lenient) {
  EXPECT_EQ(decode_base64("aGVsbG8="), "hello");
  EXPECT_EQ(decode_base64("aGVsbG8"), "hello");
  EXPECT_EQ(decode_base64(""), "");
  EXPECT_EQ(decode_base64("-_8"), decode_base64("+/8"));
  EXPECT_FALSE(decode_base64("a"));
  EXPECT_FALSE(decode_base64("aGV sbG8="));
}

TEST(Base64, UrlSafeUnpadded) {
  EXPECT_EQ(decode_base64url_unpadded("aGVsbG8"), "hello");
  EXPECT_EQ(decode_base64url_unpadded("-_-_"), std::string("\xfb\xff\xbf", 3));
  EXPECT_EQ(decode_base64url_unpadded(""), "");
  EXPECT_FALSE(decode_base64url_unpadded("aGVsbG8="));  // padding
  EXPECT_FALSE(decode_base64url_unpadded("+/+/"));      // standard alphabet
  EXPECT_FALSE(decode_base64url_unpadded("aGVsbG9"));   // stray bits after "hello"
  EXPECT_FALSE(decode_base64url_unpadded("a"));
}

TEST(Base64, StandardPadded) {
  EXPECT_EQ(decode_base64_padded("aGVsbG8="), "hello");
  EXPECT_EQ(decode_base64_padded("aGk="), "hi");
  EXPECT_EQ(decode_base64_padded("aA=="), "h");
  EXPECT_EQ(decode_base64_padded("+/+/"), std::string("\xfb\xff\xbf", 3));
  EXPECT_FALSE(decode_base64_padded("aGVsbG8"));    // padding missing
  EXPECT_FALSE(decode_base64_padded("aA="));        // too little padding
  EXPECT_FALSE(decode_base64_padded("-_-_"));       // URL-safe alphabet
  EXPECT_FALSE(decode_base64_padded("aGVsbG9="));   // stray bits
  EXPECT_FALSE(decode_base64_padded("a==="));
  EXPECT_FALSE(decode_base64_padded("aG=s"));       // padding inside
}

}  // namespace
}  // namespace buzz::engine
