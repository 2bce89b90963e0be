// Fuzz target: URLs from signed tags (the NIP-42 relay tag, the NIP-98 u tag).
//
// Both sides of each comparison are normalized, so normalizing must be
// idempotent: a URL and its normal form must compare equal. The host of a
// normal form is the host of the original (localhost aside, which the
// normal form maps to 127.0.0.1).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/common/relay_url.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view url(reinterpret_cast<const char*>(data), size);
  const std::string once = buzz::server::normalize_relay_url(url);
  FUZZ_CHECK(buzz::server::normalize_relay_url(once) == once);
  const std::string host = buzz::server::url_host(url);
  if (host != "localhost" && host != "::1" && host != "[::1]") FUZZ_CHECK(buzz::server::url_host(once) == host);
  return 0;
}
