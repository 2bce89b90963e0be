// A guest's NIP-42 AUTH to the proxy (docs/reference/proxy.md §2.2): the checks in the
// spec's order, each failure with its exact reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/event.h"

namespace buzz::proxy {

struct AuthExpectation {
  std::string challenge;
  uint64_t now = 0;
  int window_secs = 60;
  std::string relay_url;  // empty: the relay tag is not checked (only the default URL is known)
};

// nullopt when the AUTH event passes; else the OK reason.
std::optional<std::string> check_client_auth(const engine::Event& e, const AuthExpectation& x);

// Lowercase scheme and host, no default port, localhost and ::1 as
// 127.0.0.1, no trailing slash; text that is not a URL is kept as is.
std::string normalize_url(std::string_view url);

}  // namespace buzz::proxy
