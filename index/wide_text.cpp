// UTF-8 <-> wchar_t conversion; see wide_text.h.
#include "index/wide_text.h"

#include <cstdint>

namespace buzz::index {
namespace {

constexpr wchar_t kReplacement = 0xFFFD;

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

// Decodes one well-formed sequence at the front of `s` (RFC 3629), or returns 0.
size_t decode_one(std::string_view s, char32_t* out) {
  auto byte = [&](size_t i) { return uint8_t(s[i]); };
  uint8_t b0 = byte(0);
  if (b0 < 0x80) {
    *out = b0;
    return 1;
  }
  size_t len;
  char32_t cp;
  char32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if (!is_continuation(byte(i))) return 0;
    cp = (cp << 6) | (byte(i) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *out = cp;
  return len;
}

}  // namespace

std::wstring utf8_to_wide(std::string_view utf8) {
  std::wstring out;
  out.reserve(utf8.size());
  while (!utf8.empty()) {
    char32_t cp;
    size_t used = decode_one(utf8, &cp);
    if (used == 0) {
      out.push_back(kReplacement);
      used = 1;
    } else {
      out.push_back(cp == 0 ? L' ' : wchar_t(cp));
    }
    utf8.remove_prefix(used);
  }
  return out;
}

std::wstring ascii_to_wide(std::string_view ascii) { return std::wstring(ascii.begin(), ascii.end()); }

std::string wide_to_ascii(std::wstring_view wide) {
  std::string out;
  out.reserve(wide.size());
  for (wchar_t c : wide) out.push_back(c < 0x80 ? char(c) : '?');
  return out;
}

}  // namespace buzz::index
