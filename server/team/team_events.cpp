// The relay-signed follow-ups of channel changes, exactly as docs/reference/kinds.md §4
// shapes them: 39000–39002 group state, 40099 system messages, 44100/44101
// notifications, 41001 DM created, 30622 DM visibility.
#include <algorithm>

#include "engine/canonical.h"
#include "engine/kind_numbers.h"
#include "server/team/group_state.h"
#include "server/team/team_model.h"

namespace buzz::server {

using engine::Channel;
using engine::ChannelMember;
using engine::Tag;

void TeamModel::audit(Admission& a, const engine::Event& cause, std::string_view action, const std::string& channel,
                      std::vector<std::pair<std::string, std::string>> meta) {
  audit(a, AuditCause{cause.id_hex(), cause.kind, cause.pubkey}, action, channel, std::move(meta));
}

void TeamModel::audit(Admission& a, const AuditCause& cause, std::string_view action, const std::string& channel,
                      std::vector<std::pair<std::string, std::string>> meta) {
  a.audit.push_back({cause.event_id, cause.kind, engine::to_hex(cause.actor), std::string(action), channel,
                     meta.empty() ? "null" : json_object(std::move(meta))});
}

engine::Event TeamModel::sign(uint16_t kind, uint64_t created_at, std::vector<Tag> tags, std::string content) {
  return engine::signed_event(relay_key_, kind, created_at, std::move(tags), std::move(content));
}

uint64_t TeamModel::state_time(const std::string& key, uint64_t now) {
  uint64_t& last = state_times_[key];
  last = std::max(now, last + 1);
  return last;
}

void TeamModel::emit_group_state(Admission& a, const Channel& ch, uint64_t now) {
  GroupStateTags g = group_state_tags(ch, team_.active_members(ch.id));
  a.emitted.push_back({sign(kind::kGroupMetadata, state_time("39000" + ch.id, now), std::move(g.metadata)), ch.id});
  a.emitted.push_back({sign(kind::kGroupAdmins, state_time("39001" + ch.id, now), std::move(g.admins)), ch.id});
  a.emitted.push_back({sign(kind::kGroupMembers, state_time("39002" + ch.id, now), std::move(g.members)), ch.id});
}

void TeamModel::emit_system(Admission& a, const std::string& channel,
                            std::vector<std::pair<std::string, std::string>> fields, uint64_t now) {
  a.emitted.push_back({sign(kind::kSystemMessage, now, {{"h", channel}}, json_object(std::move(fields))), channel});
}

void TeamModel::emit_notice(Admission& a, uint16_t kind, const engine::Pubkey& target, const std::string& channel,
                            const engine::Pubkey& actor, uint64_t now) {
  std::string content =
      json_object({{"actor", json_string(engine::to_hex(actor))},
                   {"channel_id", json_string(channel)},
                   {"type", json_string(kind == kind::kMemberAddedNotification ? "member_added" : "member_removed")}});
  // Stored globally although it carries an h tag: readable through #p only (docs/reference/kinds.md §4.3).
  a.emitted.push_back({sign(kind, now, {{"p", engine::to_hex(target)}, {"h", channel}}, std::move(content)), ""});
}

void TeamModel::emit_dm_created(Admission& a, const Channel& ch, const engine::Pubkey& creator, uint64_t now) {
  std::vector<Tag> tags = {{"d", ch.id}, {"h", ch.id}};
  for (const ChannelMember* m : team_.active_members(ch.id)) tags.push_back({"p", engine::to_hex(m->pubkey)});
  std::string content =
      json_object({{"channel_id", json_string(ch.id)}, {"created_by", json_string(engine::to_hex(creator))}});
  a.emitted.push_back({sign(kind::kDmCreated, now, std::move(tags), std::move(content)), ""});
}

void TeamModel::emit_dm_visibility(Admission& a, const engine::Pubkey& viewer, uint64_t now) {
  std::string hex = engine::to_hex(viewer);
  std::vector<std::string> hidden;
  for (const std::string& id : team_.readable_channels(viewer)) {
    const Channel* ch = team_.channel(id);
    const ChannelMember* m = team_.member(id, viewer);
    if (ch && m && ch->type == engine::ChannelType::kDm && m->active() && m->hidden_at) hidden.push_back(id);
  }
  std::sort(hidden.begin(), hidden.end());
  std::vector<Tag> tags = {{"d", hex}, {"p", hex}};
  for (std::string& id : hidden) tags.push_back({"h", std::move(id)});
  a.emitted.push_back({sign(kind::kDmVisibility, state_time("30622" + hex, now), std::move(tags)), ""});
}

}  // namespace buzz::server
