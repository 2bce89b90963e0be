#include "tools/cli/validate.h"

#include <cctype>

#include "engine/hex.h"
#include "engine/signature.h"
#include "tools/cli/cli_error.h"

namespace buzz::cli {
namespace {

std::string lowercase(std::string s) {
  for (char& c : s) c = char(std::tolower(uint8_t(c)));
  return s;
}

std::string hyphenated(const uint8_t* b) {
  std::string hex = engine::to_hex(b, 16);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

}  // namespace

std::string checked_uuid(const std::string& s) {
  // The spellings a UUID parser takes: hyphenated, simple (32 digits), braced, urn:uuid:.
  std::string_view v = s;
  if (v.starts_with("urn:uuid:")) v.remove_prefix(9);
  else if (v.size() == 38 && v.front() == '{' && v.back() == '}') v = v.substr(1, 36);
  std::string digits;
  if (v.size() == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-') {
    for (size_t i = 0; i < v.size(); ++i) {
      if (i != 8 && i != 13 && i != 18 && i != 23) digits += v[i];
    }
  } else if (v.size() == 32) {
    digits = v;
  }
  uint8_t bytes[16];
  if (digits.size() != 32 || !engine::from_hex_any_case(digits, bytes, sizeof bytes)) {
    throw CliError(Category::kUser, "invalid UUID: " + s);
  }
  return hyphenated(bytes);
}

std::string checked_hex64(const std::string& s) {
  uint8_t bytes[32];
  if (s.size() != 64 || !engine::from_hex_any_case(s, bytes, sizeof bytes)) {
    throw CliError(Category::kUser, "must be a 64-character hex string: " + s);
  }
  return lowercase(s);
}

void check_content_size(const std::string& content) {
  if (content.size() > kMaxContentBytes) {
    throw CliError(Category::kUser, "content exceeds maximum size (" + std::to_string(content.size()) + " > " +
                                        std::to_string(kMaxContentBytes) + " bytes)");
  }
}

std::string checked_choice(const std::string& flag, const std::string& s, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (s == a) return s;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  throw CliError(Category::kUser, "invalid value '" + s + "' for '--" + flag + "' [possible values: " + list + "]");
}

uint64_t checked_number(const std::string& flag, const std::string& s) {
  uint64_t n = 0;
  bool ok = !s.empty() && s.size() <= 19;
  for (char c : s) {
    ok = ok && std::isdigit(uint8_t(c));
    n = n * 10 + uint64_t(c - '0');
  }
  if (!ok) throw CliError(Category::kUser, "invalid value '" + s + "' for '--" + flag + "': expected a non-negative integer");
  return n;
}

uint64_t clamped_limit(const std::string& flag, const std::optional<std::string>& given, uint64_t fallback, uint64_t max) {
  if (!given) return fallback;
  const uint64_t n = checked_number(flag, *given);
  return n > max ? max : n;
}

std::string percent_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const uint8_t c = uint8_t(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string query_string(std::initializer_list<std::pair<const char*, std::optional<std::string>>> params) {
  std::string q;
  for (const auto& [name, value] : params) {
    if (value) q += (q.empty() ? "?" : "&") + std::string(name) + "=" + percent_encode(*value);
  }
  return q;
}

std::string new_uuid_v4() {
  uint8_t b[16];
  engine::random_bytes(b, sizeof b);
  b[6] = uint8_t((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = uint8_t((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return hyphenated(b);
}

}  // namespace buzz::cli
