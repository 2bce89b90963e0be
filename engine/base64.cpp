// Base64; see base64.h.
#include "engine/base64.h"

#include <algorithm>
#include <cstdint>

namespace buzz::engine {
namespace {

enum class Alphabet { kEither, kStandard, kUrlSafe };

constexpr char kStandardDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrlSafeDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Four digits for every three bytes; the last group's missing digits are '=' when `pad`.
std::string encode(std::string_view bytes, const char* digits, bool pad) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = uint32_t(uint8_t(bytes[i])) << 16;
    if (n > 1) group |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (n > 2) group |= uint8_t(bytes[i + 2]);
    for (size_t d = 0; d < 4; ++d) {
      if (d <= n) out.push_back(digits[(group >> (18 - 6 * d)) & 63]);
      else if (pad) out.push_back('=');
    }
  }
  return out;
}

int base64_value(char c, Alphabet alphabet) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  bool standard = alphabet != Alphabet::kUrlSafe, url_safe = alphabet != Alphabet::kStandard;
  if ((c == '+' && standard) || (c == '-' && url_safe)) return 62;
  if ((c == '/' && standard) || (c == '_' && url_safe)) return 63;
  return -1;
}

// Decodes unpadded text; `strict` also refuses set bits after the last byte,
// so every byte string has exactly one accepted encoding.
std::optional<std::string> decode(std::string_view text, Alphabet alphabet, bool strict) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = base64_value(c, alphabet);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(char((acc >> bits) & 0xFF));
    }
  }
  if (strict && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace

std::string encode_base64(std::string_view bytes) { return encode(bytes, kStandardDigits, true); }

std::string encode_base64url_unpadded(std::string_view bytes) { return encode(bytes, kUrlSafeDigits, false); }

std::optional<std::string> decode_base64(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  return decode(text, Alphabet::kEither, false);
}

std::optional<std::string> decode_base64url_unpadded(std::string_view text) {
  return decode(text, Alphabet::kUrlSafe, true);
}

std::optional<std::string> decode_base64_padded(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
  return decode(text.substr(0, text.size() - pad), Alphabet::kStandard, true);
}

}  // namespace buzz::engine
