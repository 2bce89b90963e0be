// Channels joined and left (harness_loop.h): the relay's membership
// notifications (kinds 44100 and 44101) add a channel (subscribed, its name
// fetched for prompts) or remove it (unsubscribed, its queue drained, its
// sessions forgotten). A notification older than one applied is ignored.
#include <algorithm>

#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "tools/acp/harness_loop.h"
#include "tools/acp/rest_client.h"

namespace buzz::acp::harness {

void Loop::on_membership(const engine::Event& e) {
  if (!seen_membership_.insert(e.id_hex())) return;
  const std::string channel(e.first_tag_value("h"));
  if (channel.empty() || (e.kind != kind::kMemberAddedNotification && e.kind != kind::kMemberRemovedNotification))
    return;
  membership_since_ = std::max(membership_since_, e.created_at);
  ChannelState& ch = channels_[channel];
  ch.info.id = channel;
  if (e.created_at < ch.newest_membership) return;  // stale: an older change than one applied
  ch.newest_membership = e.created_at;
  if (e.kind == kind::kMemberAddedNotification) {
    if (!cfg_.channels.empty() && std::find(cfg_.channels.begin(), cfg_.channels.end(), channel) == cfg_.channels.end()) return;
    log("added to channel " + channel);
    ch.removed = false;
    if (ws_) subscribe(ch);
    else ch.subscribed = true;  // subscribed on reconnect
    pool_->submit([this, channel](RestClient& rest) {  // its name and type, for prompts
      for (ChannelInfo& info : rest.member_channels()) {
        if (info.id == channel) post([this, info] { channels_[info.id].info = info; });
      }
    });
    return;
  }
  log("removed from channel " + channel);
  if (ch.subscribed) send(json_array({json_string("CLOSE"), json_string("ch-" + channel)}));
  ch.subscribed = false;
  ch.removed = true;
  ch.cancelled.clear();
  reactions(queues_.drain(channel), "👀", false);
  forget_sessions(channel);
}

void Loop::forget_sessions(const std::string& channel) {
  for (Slot& s : slots_) {  // each agent drops its session at its next job
    s.drop_sessions.push_back(channel);
    s.sessions.erase(channel);
  }
}

}  // namespace buzz::acp::harness
