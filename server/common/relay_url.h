// Relay-URL helpers: the normalization for the NIP-42 relay tag (docs/reference/protocol.md
// §6.2), where both the configured RELAY_URL and the client's tag are
// normalized, then compared; and the relay's host, the NIP-05 domain
// (docs/reference/rest-api.md §3.15).
#pragma once

#include <string>
#include <string_view>

namespace buzz::server {

// Lowercases scheme and host, drops the scheme's default port, maps localhost
// and ::1 to 127.0.0.1 and strips trailing slashes. Text that is not a URL is
// returned unchanged.
std::string normalize_relay_url(std::string_view url);

// The URL's host, lowercased, without scheme, port or path ("" for text that
// is not a URL). Unlike normalize_relay_url, localhost stays localhost.
std::string url_host(std::string_view url);

}  // namespace buzz::server
