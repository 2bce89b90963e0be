// The checks a save makes beyond the definition's own validation (§3): the
// seed-era REST rules on send_message.channel overrides (docs/reference/rest-api.md §3.13)
// and the save-time SSRF check of every call_webhook URL (docs/reference/workflows.md §9.5).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/workflows/definition.h"

namespace buzz::server {

// A webhook host name a save must still resolve, and the step whose URL names it.
struct HostCheck {
  std::string host, step_id;
};

// nullopt, or the error text. Host names are not resolved here (a lookup can
// take seconds): they are added to *resolve, for check_webhook_host.
std::optional<std::string> save_checks(const Definition& d, std::string_view channel,
                                       const std::vector<std::string>& allow_hosts, std::vector<HostCheck>* resolve);

}  // namespace buzz::server
