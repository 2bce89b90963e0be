// Checks on flag values, with the exact messages of docs/reference/agents-and-cli.md §B.1,
// and the query-string encoding of the same section. Each check returns the
// value in the form the relay expects or throws user_error.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace buzz::cli {

inline constexpr size_t kMaxContentBytes = 65536;

// A UUID in any accepted spelling → lowercase hyphenated; `invalid UUID: <s>`.
std::string checked_uuid(const std::string& s);
// 64 hex digits in either case → lowercase; `must be a 64-character hex string: <s>`.
std::string checked_hex64(const std::string& s);
// `content exceeds maximum size (N > 65536 bytes)`.
void check_content_size(const std::string& content);
// One of the allowed words, else clap's `invalid value 'x' for '--flag'` message.
std::string checked_choice(const std::string& flag, const std::string& s, std::initializer_list<const char*> allowed);
// A non-negative integer flag.
uint64_t checked_number(const std::string& flag, const std::string& s);
// A `--limit`-style flag: absent → fallback, above max → max.
uint64_t clamped_limit(const std::string& flag, const std::optional<std::string>& given, uint64_t fallback, uint64_t max);

// Every byte but A–Z a–z 0–9 - _ . ~ as %XX (uppercase).
std::string percent_encode(std::string_view s);

// `?a=1&b=2` from the pairs whose value is present, each value percent-encoded.
std::string query_string(std::initializer_list<std::pair<const char*, std::optional<std::string>>> params);

// A fresh random UUID v4, lowercase hyphenated.
std::string new_uuid_v4();

}  // namespace buzz::cli
