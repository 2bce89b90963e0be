// The front binary's SHA-256 (libnettle's, server/app/front_sha256.cpp) against
// OpenSSL's: the FIPS 180-4 examples, every length from 0 to 200 bytes (one,
// two and three blocks, each padding case), and long random inputs. Its own
// executable: the definition it checks is engine::sha256, which every other
// program takes from engine/sha256.cpp.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <random>
#include <string>

#include "engine/canonical.h"
#include "engine/hex.h"

namespace buzz::engine {
namespace {

std::string ours(const std::string& bytes) {
  uint8_t out[32];
  sha256(bytes.data(), bytes.size(), out);
  return to_hex(out, sizeof out);
}

std::string openssl(const std::string& bytes) {
  uint8_t out[32];
  unsigned int n = 0;
  EXPECT_EQ(EVP_Digest(bytes.data(), bytes.size(), out, &n, EVP_sha256(), nullptr), 1);
  return to_hex(out, n);
}

TEST(FrontSha256, KnownAnswers) {
  EXPECT_EQ(ours(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(ours("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(ours("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(FrontSha256, EveryShortLengthAndLongRandomInputsMatchOpenSsl) {
  std::mt19937 rng(36);
  std::string bytes;
  for (size_t len = 0; len <= 200; ++len) {
    EXPECT_EQ(ours(bytes), openssl(bytes)) << len << " bytes";
    bytes.push_back(char(rng()));
  }
  for (size_t len : {1000u, 4096u, 65537u, 1u << 20}) {
    bytes.resize(len);
    for (char& c : bytes) c = char(rng());
    EXPECT_EQ(ours(bytes), openssl(bytes)) << len << " bytes";
  }
}

}  // namespace
}  // namespace buzz::engine
