// Range header resolution; see byte_range.h.
#include "server/media/byte_range.h"

#include <algorithm>
#include <charconv>
#include <optional>

namespace buzz::server {
namespace {

// Plain decimal digits only: no sign, no spaces, no overflow.
std::optional<uint64_t> parse_offset(std::string_view s) {
  uint64_t v = 0;
  if (s.empty() || s.front() < '0' || s.front() > '9') return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

ByteRange resolve_byte_range(std::string_view header, uint64_t total, uint64_t max_chunk) {
  using Kind = ByteRange::Kind;
  if (header.empty() || header.find(',') != std::string_view::npos) return {};
  const ByteRange unsatisfiable{Kind::kUnsatisfiable, 0, 0};
  constexpr std::string_view kUnit = "bytes=";
  if (!header.starts_with(kUnit)) return unsatisfiable;
  std::string_view spec = header.substr(kUnit.size());
  size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return unsatisfiable;

  uint64_t first, last;
  if (dash == 0) {  // bytes=-N: the last N bytes
    std::optional<uint64_t> n = parse_offset(spec.substr(1));
    if (!n || *n == 0 || total == 0) return unsatisfiable;
    first = total - std::min(*n, total);
    last = total - 1;
  } else {  // bytes=S-E or bytes=S-
    std::optional<uint64_t> s = parse_offset(spec.substr(0, dash));
    std::optional<uint64_t> e = dash + 1 == spec.size() ? UINT64_MAX : parse_offset(spec.substr(dash + 1));
    if (!s || !e || *s > *e || *s >= total) return unsatisfiable;
    first = *s;
    last = std::min(*e, total - 1);
  }
  // Written as a length, since first + max_chunk can wrap for offsets near 2^64.
  if (last - first >= max_chunk) last = first + (max_chunk - 1);
  return {Kind::kPartial, first, last};
}

}  // namespace buzz::server
