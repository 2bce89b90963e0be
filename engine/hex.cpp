// Lowercase hex encoding; see hex.h.
#include "engine/hex.h"

namespace buzz::engine {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

// -1 for anything that is not a lowercase hex digit.
constexpr int8_t lower_nibble(char c) {
  if (c >= '0' && c <= '9') return int8_t(c - '0');
  if (c >= 'a' && c <= 'f') return int8_t(c - 'a' + 10);
  return -1;
}

}  // namespace

void hex_encode(const uint8_t* data, size_t len, char* out) {
  for (size_t i = 0; i < len; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0xf];
  }
}

std::string to_hex(const uint8_t* data, size_t len) {
  std::string s(2 * len, '\0');
  hex_encode(data, len, s.data());
  return s;
}

bool hex_decode(std::string_view text, uint8_t* out, size_t len) {
  if (text.size() != 2 * len) return false;
  for (size_t i = 0; i < len; ++i) {
    int8_t hi = lower_nibble(text[2 * i]);
    int8_t lo = lower_nibble(text[2 * i + 1]);
    if ((hi | lo) < 0) return false;
    out[i] = uint8_t(hi << 4 | lo);
  }
  return true;
}

bool is_lower_hex(std::string_view text, size_t len) {
  if (text.size() != 2 * len) return false;
  for (char c : text) {
    if (lower_nibble(c) < 0) return false;
  }
  return true;
}

bool from_hex_any_case(std::string_view text, uint8_t* out, size_t len) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'F') c = char(c - 'A' + 'a');
  }
  return hex_decode(lower, out, len);
}

}  // namespace buzz::engine
