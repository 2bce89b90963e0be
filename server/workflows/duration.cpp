// Duration strings; see duration.h.
#include "server/workflows/duration.h"

#include <string>

namespace buzz::server {

engine::Result<uint64_t> parse_duration(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  uint64_t unit = 1;
  if (!s.empty() && (s.back() == 'h' || s.back() == 'm' || s.back() == 's')) {
    unit = s.back() == 'h' ? 3600 : s.back() == 'm' ? 60 : 1;
    s.remove_suffix(1);
  }
  if (s.empty()) return engine::Error{"invalid duration: " + std::string(text)};
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return engine::Error{"invalid duration: " + std::string(text)};
    if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, uint64_t(c - '0'), &n)) {
      return engine::Error{"duration overflow: " + std::string(text)};
    }
  }
  if (__builtin_mul_overflow(n, unit, &n)) return engine::Error{"duration overflow: " + std::string(text)};
  return n;
}

}  // namespace buzz::server
