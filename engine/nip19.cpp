#include "engine/nip19.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <vector>

#include "engine/hex.h"

namespace buzz::engine {
namespace {

constexpr std::string_view kCharset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

uint32_t polymod(const std::vector<uint8_t>& values) {
  constexpr uint32_t kGenerator[5] = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
  uint32_t chk = 1;
  for (uint8_t v : values) {
    const uint32_t top = chk >> 25;
    chk = (chk & 0x1ffffff) << 5 ^ v;
    for (int i = 0; i < 5; ++i) {
      if ((top >> i) & 1) chk ^= kGenerator[i];
    }
  }
  return chk;
}

std::vector<uint8_t> expand_prefix(std::string_view hrp) {
  std::vector<uint8_t> out;
  for (char c : hrp) out.push_back(uint8_t(c) >> 5);
  out.push_back(0);
  for (char c : hrp) out.push_back(uint8_t(c) & 31);
  return out;
}

// Regroups bits (8 → 5 with padding, 5 → 8 without); false on bad padding.
bool regroup(const uint8_t* in, size_t n, int from, int to, bool pad, std::vector<uint8_t>* out) {
  uint32_t acc = 0;
  int bits = 0;
  const uint32_t max = (1u << to) - 1;
  for (size_t i = 0; i < n; ++i) {
    acc = acc << from | in[i];
    bits += from;
    while (bits >= to) {
      bits -= to;
      out->push_back(uint8_t(acc >> bits & max));
    }
  }
  if (pad) {
    if (bits) out->push_back(uint8_t(acc << (to - bits) & max));
    return true;
  }
  return bits < from && !(acc << (to - bits) & max);
}

std::string encode(std::string_view hrp, const uint8_t* bytes, size_t n) {
  std::vector<uint8_t> data;
  regroup(bytes, n, 8, 5, true, &data);
  std::vector<uint8_t> values = expand_prefix(hrp);
  values.insert(values.end(), data.begin(), data.end());
  values.insert(values.end(), 6, 0);
  const uint32_t checksum = polymod(values) ^ 1;
  std::string out(hrp);
  out += '1';
  for (uint8_t d : data) out += kCharset[d];
  for (int i = 0; i < 6; ++i) out += kCharset[checksum >> (5 * (5 - i)) & 31];
  return out;
}

}  // namespace

std::string encode_npub(const Pubkey& pk) { return encode("npub", pk.data(), pk.size()); }
std::string encode_nsec(const SecretKey& sk) { return encode("nsec", sk.data(), sk.size()); }

std::optional<std::array<uint8_t, 32>> decode_bech32_key(std::string_view text, std::string_view prefix) {
  // 32 bytes are 52 characters of data, then 6 of checksum, after "prefix1".
  if (text.size() != prefix.size() + 1 + 52 + 6) return std::nullopt;
  bool lower = false, upper = false;
  std::string s(text);
  for (char& c : s) {
    lower |= std::islower(static_cast<unsigned char>(c)) != 0;
    upper |= std::isupper(static_cast<unsigned char>(c)) != 0;
    c = char(std::tolower(static_cast<unsigned char>(c)));
  }
  if ((lower && upper) || s.compare(0, prefix.size(), prefix) != 0 || s[prefix.size()] != '1') return std::nullopt;
  std::vector<uint8_t> values = expand_prefix(prefix), data;
  for (size_t i = prefix.size() + 1; i < s.size(); ++i) {
    const size_t v = kCharset.find(s[i]);
    if (v == std::string_view::npos) return std::nullopt;
    values.push_back(uint8_t(v));
    if (i + 6 < s.size()) data.push_back(uint8_t(v));
  }
  if (polymod(values) != 1) return std::nullopt;
  std::vector<uint8_t> bytes;
  if (!regroup(data.data(), data.size(), 5, 8, false, &bytes) || bytes.size() != 32) return std::nullopt;
  std::array<uint8_t, 32> out;
  std::copy(bytes.begin(), bytes.end(), out.begin());
  return out;
}

std::optional<Keypair> parse_secret_key(std::string_view text) {
  SecretKey sk;
  if (auto bytes = decode_bech32_key(text, "nsec")) {
    std::copy(bytes->begin(), bytes->end(), sk.begin());
  } else if (!from_hex_any_case(text, sk.data(), sk.size())) {
    return std::nullopt;
  }
  return keypair_from_secret(sk);
}

}  // namespace buzz::engine
