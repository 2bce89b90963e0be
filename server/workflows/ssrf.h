// SSRF rules for call_webhook (docs/reference/workflows.md §9.5): which addresses a workflow
// may never reach, every spelling of an IP literal (inet_aton's decimal,
// octal, hex and short forms; IPv6 with IPv4-mapped, -compatible and NAT64
// embeddings), and the save-time check of a step's URL.
//
// Pure except check_webhook_host (and check_webhook_url without a
// `resolve_later`), which resolve host names: blocking, seconds at worst.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace buzz::server {

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4 in the first four

  std::string to_string() const;
};

// A host that spells an IP address in any form a client library would
// connect to (brackets around IPv6 allowed); nullopt for a name.
std::optional<IpAddress> parse_ip_literal(std::string_view host);

// Loopback, private, link-local (cloud metadata), CGNAT, benchmarking,
// broadcast, multicast, reserved, unspecified, ULA, documentation — and any
// IPv6 form that embeds such an IPv4 address.
bool is_private_address(const IpAddress& ip);

// Every address the system resolver gives for host (port 80); the error text
// on failure.
std::optional<std::vector<IpAddress>> resolve_host(const std::string& host, std::string* error);

// Whether host is on the operator's allow-list (case-insensitive, exact).
bool host_allowed(std::string_view host, const std::vector<std::string>& allow_hosts);

// The save-time check of one call_webhook URL: nullopt, or the error text.
// With `resolve_later`, a host name is not resolved here but put there (""
// when nothing is left to resolve), for check_webhook_host on another thread.
std::optional<std::string> check_webhook_url(std::string_view url, std::string_view step_id,
                                             const std::vector<std::string>& allow_hosts,
                                             std::string* resolve_later = nullptr);

// The save-time check of a host name: every address it resolves to is public.
std::optional<std::string> check_webhook_host(const std::string& host, std::string_view step_id);

}  // namespace buzz::server
