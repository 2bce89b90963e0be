// A workflow acts with its owner's rights as they are when it acts, never as
// they were when it was saved (docs/access.md "Rights are checked when
// acting"): the run executor asks owner_refusal() before every step, so a run
// started, resumed from a delay or an approval, or fired by a schedule or a
// webhook stops once its owner may no longer read the channel, and disable()
// keeps the workflow (and its runs) but stops it firing. Who may manage a
// workflow besides its owner is here too. Any thread: team state, relay
// membership and the gatekeeper's profiles take their own locks.
#include "engine/clock.h"
#include "server/common/log.h"
#include "server/workflows/workflows.h"

namespace buzz::server {

std::optional<std::string> Workflows::owner_refusal(const Workflow& w, bool posts) const {
  if (!gatekeeper_.admitted(w.record.owner)) return "workflow owner is no longer a relay member";
  const std::string& channel = w.record.channel_id;
  if (channel.empty()) return std::nullopt;
  const engine::ChannelAccess access = team_.access(channel, w.record.owner);
  if (!access.can_read()) return "workflow owner can no longer read channel " + channel;
  if (posts && !access.can_post()) return "workflow owner can no longer post in channel " + channel;
  return std::nullopt;
}

bool Workflows::manages(const engine::Pubkey& pk, std::string_view channel) const {
  if (auto relay_role = membership_.role(pk); relay_role && *relay_role != engine::RelayRole::kMember) return true;
  if (channel.empty()) return false;
  auto role = team_.access(channel, pk).role;
  return role && (*role == engine::ChannelRole::kOwner || *role == engine::ChannelRole::kAdmin);
}

bool Workflows::may_manage(const WorkflowCaller& who, const Workflow& w) const {
  const std::string& channel = w.record.channel_id;
  if (!channel.empty() && !who.grant_reaches(channel)) return false;
  return w.record.owner == who.pubkey || manages(who.pubkey, channel);
}

void Workflows::disable(std::string_view id) {
  auto done = edit(id, [](Workflow& w) {
    if (w.record.status != engine::kWorkflowActive) return;  // an archived one stays archived
    w.record.status = engine::kWorkflowDisabled;
    w.record.updated_at = engine::unix_now();
  });
  if (!done) {
    log_warn("workflow not disabled", {{"workflow_id", std::string(id)}, {"error", done.error()}});
  } else {
    log_info("workflow disabled: its owner lost access", {{"workflow_id", std::string(id)}});
  }
}

}  // namespace buzz::server
