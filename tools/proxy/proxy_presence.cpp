// Guests' presence (docs/reference/proxy.md §11): while a guest has an
// authenticated session, the team sees its shadow key online in the channels
// it may see. The proxy says so with the team's own presence kind, 20001,
// signed by the guest's shadow key and carrying one `h` tag per channel; the
// relay shows that status to those channels' members (a shadow key is a
// member of none). "online" when the guest's first session authenticates,
// again every kPresenceRefreshSecs and after each reconnect to the relay (the
// status lives 90 s there), "offline" when its last session closes.
// Loop thread, like the rest of the service.
#include <set>

#include "engine/clock.h"
#include "engine/kind_numbers.h"
#include "tools/proxy/proxy_service.h"
#include "tools/proxy/proxy_state.h"

namespace buzz::proxy {

void ProxyService::guest_joined(const Session& s) {
  if (++online_[s.pubkey] == 1) announce_presence(s.pubkey, "online");
}

void ProxyService::guest_left(const Session& s) {
  auto it = online_.find(s.pubkey);
  if (it == online_.end() || --it->second > 0) return;
  announce_presence(s.pubkey, "offline");
  online_.erase(it);
}

void ProxyService::refresh_presence() {
  last_presence_ = engine::unix_now();
  for (const auto& [guest, sessions] : online_) announce_presence(guest, "online");
}

void ProxyService::announce_presence(const std::string& guest, std::string_view status) {
  // Every channel any of its sessions may see that the relay shows the proxy:
  // the relay refuses a channel the proxy itself may not read.
  std::set<std::string> channels;
  for (const auto& [key, s] : sessions_) {
    if (!s->authed || s->pubkey != guest) continue;
    for (const std::string& ch : s->allowed) {
      if (channels_.by_uuid(ch)) channels.insert(ch);
    }
  }
  if (channels.empty()) return;
  auto shadow = shadows_.of(guest, /*guest=*/true);
  if (!shadow) return;
  std::vector<engine::Tag> tags;
  for (const std::string& ch : channels) {
    if (tags.size() == kMaxPresenceChannels) break;
    tags.push_back({"h", ch});
  }
  const engine::Event e = engine::signed_event(*shadow, kind::kPresence, engine::unix_now(), std::move(tags), std::string(status));
  to_upstream("[\"EVENT\"," + e.raw + "]");
}

}  // namespace buzz::proxy
