// NIP-40 expiration; see expiration.h.
#include "engine/expiration.h"

#include <charconv>

namespace buzz::engine {
namespace {

std::optional<uint64_t> parse_seconds(std::string_view text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<uint64_t> expiration_of(const Event& e) {
  const Tag* t = e.first_tag("expiration");
  return t ? parse_seconds((*t)[1]) : std::nullopt;
}

}  // namespace buzz::engine
