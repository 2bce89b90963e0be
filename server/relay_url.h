// Relay-URL normalization for the NIP-42 relay tag (protocol.md §6.2): both the
// configured RELAY_URL and the client's tag are normalized, then compared.
#pragma once

#include <string>
#include <string_view>

namespace buzz::server {

// Lowercases scheme and host, drops the scheme's default port, maps localhost
// and ::1 to 127.0.0.1 and strips trailing slashes. Text that is not a URL is
// returned unchanged.
std::string normalize_relay_url(std::string_view url);

}  // namespace buzz::server
