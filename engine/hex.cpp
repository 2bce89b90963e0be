// Lowercase hex encoding; see hex.h.
#include "engine/hex.h"

#include <array>

namespace buzz::engine {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

// Each byte's value as a lowercase hex digit, or -1.
constexpr auto kNibble = [] {
  std::array<int8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[size_t(c)] = c >= '0' && c <= '9' ? int8_t(c - '0') : c >= 'a' && c <= 'f' ? int8_t(c - 'a' + 10) : int8_t(-1);
  }
  return t;
}();

int8_t lower_nibble(char c) { return kNibble[uint8_t(c)]; }

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
  int8_t bad = 0;  // negative once any digit was not hex; checked once, at the end
  for (size_t i = 0; i < len; ++i) {
    int8_t hi = lower_nibble(text[2 * i]);
    int8_t lo = lower_nibble(text[2 * i + 1]);
    bad |= int8_t(hi | lo);
    out[i] = uint8_t(hi << 4 | lo);
  }
  return bad >= 0;
}

bool is_lower_hex(std::string_view text, size_t len) {
  if (text.size() != 2 * len) return false;
  for (char c : text) {
    if (lower_nibble(c) < 0) return false;
  }
  return true;
}

bool is_hex64(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    const char lower = c >= 'A' && c <= 'F' ? char(c - 'A' + 'a') : c;
    if (lower_nibble(lower) < 0) return false;
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
