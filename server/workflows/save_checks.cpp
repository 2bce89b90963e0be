#include "server/workflows/save_checks.h"

#include "engine/channel.h"
#include "server/workflows/ssrf.h"

namespace buzz::server {

std::optional<std::string> save_checks(const Definition& d, std::string_view channel,
                                       const std::vector<std::string>& allow_hosts,
                                       std::vector<HostCheck>* resolve) {
  for (const Step& s : d.steps) {
    if (s.action == ActionKind::kSendMessage) {
      if (auto override_id = s.field("channel")) {
        if (!engine::parses_as_uuid(*override_id)) {
          return "invalid workflow YAML: step '" + s.id + "' has an invalid send_message.channel UUID";
        }
        if (*override_id != channel) {
          return "invalid workflow YAML: step '" + s.id + "' cannot override send_message.channel outside workflow channel " +
                 std::string(channel);
        }
      }
    }
    if (s.action == ActionKind::kCallWebhook) {
      std::string host;
      if (auto error = check_webhook_url(s.field("url").value_or(""), s.id, allow_hosts, &host)) return error;
      if (!host.empty()) resolve->push_back({std::move(host), s.id});
    }
  }
  return std::nullopt;
}

}  // namespace buzz::server
