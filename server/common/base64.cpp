// Base64 decoding; see base64.h.
#include "server/common/base64.h"

#include <cstdint>

namespace buzz::server {
namespace {

enum class Alphabet { kEither, kStandard, kUrlSafe };

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

}  // namespace buzz::server
