// NIP-19 keys against the NIP's own examples (checked with nostr-tools too).
#include "engine/nip19.h"

#include <gtest/gtest.h>

#include "engine/hex.h"

namespace buzz::engine {
namespace {

constexpr const char* kNpub = "npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg";
constexpr const char* kNpubHex = "7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e";
constexpr const char* kNsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
constexpr const char* kNsecHex = "67dea2ed018072d675f5415ecfaed7d2597555e202d85b3d65ea4e58d2d92ffa";

TEST(Nip19Test, DecodesAndEncodesTheNipsExamples) {
  auto pk = decode_bech32_key(kNpub, "npub");
  ASSERT_TRUE(pk);
  EXPECT_EQ(to_hex(*pk), kNpubHex);
  EXPECT_EQ(encode_npub(*pk), kNpub);
  auto sk = decode_bech32_key(kNsec, "nsec");
  ASSERT_TRUE(sk);
  EXPECT_EQ(to_hex(*sk), kNsecHex);
  EXPECT_EQ(encode_nsec(*sk), kNsec);
}

TEST(Nip19Test, RefusesWhatIsNotExactlyAKeyOfThatPrefix) {
  std::string flipped = kNpub;
  flipped[20] = flipped[20] == 'q' ? 'p' : 'q';
  EXPECT_FALSE(decode_bech32_key(flipped, "npub")) << "checksum";
  EXPECT_FALSE(decode_bech32_key(kNpub, "nsec")) << "prefix";
  EXPECT_FALSE(decode_bech32_key(std::string(kNpub).substr(0, 60), "npub")) << "length";
  std::string mixed = kNpub;
  mixed[10] = char(std::toupper(mixed[10]));
  EXPECT_FALSE(decode_bech32_key(mixed, "npub")) << "mixed case";
  std::string upper = kNpub;
  for (char& c : upper) c = char(std::toupper(c));
  EXPECT_TRUE(decode_bech32_key(upper, "npub")) << "one case throughout is fine";
  EXPECT_FALSE(decode_bech32_key("npub1bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "npub")) << "'b' is not bech32";
}

TEST(Nip19Test, SecretKeyAsHexOrNsecGivesTheSameKeypair) {
  auto from_nsec = parse_secret_key(kNsec), from_hex = parse_secret_key(kNsecHex);
  ASSERT_TRUE(from_nsec && from_hex);
  EXPECT_EQ(from_nsec->pubkey, from_hex->pubkey);
  EXPECT_FALSE(parse_secret_key("not a key"));
  EXPECT_FALSE(parse_secret_key(std::string(64, '0'))) << "zero is not a secp256k1 secret";
}

}  // namespace
}  // namespace buzz::engine
