// A URL of a scheme the project's own clients speak (http://, ws://) taken
// apart: by the agent CLI's HTTP client, and by buzz sync, the proxy and the
// ACP harness for their relay links (tools/sync/relay_link.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace buzz::client {

struct UrlParts {
  std::string authority;     // host[:port] as written: the Host header
  std::string host;          // an IPv6 literal without its brackets
  uint16_t port = 80;        // the default of both schemes
  std::string target = "/";  // the path and query, without a fragment
};

// nullopt unless `url` starts with `scheme` ("http://", "ws://") and names a
// host, without user:password@, and with a port from 1 to 65535 if it has one.
std::optional<UrlParts> split_url(std::string_view url, std::string_view scheme);

}  // namespace buzz::client
