#include "server/team/group_state.h"

#include <string>
#include <unordered_set>

#include "engine/kind_numbers.h"

namespace buzz::server {

using engine::Tag;

GroupStateTags group_state_tags(const engine::Channel& ch, const std::vector<const engine::ChannelMember*>& members) {
  GroupStateTags g;
  g.metadata = {{"d", ch.id}, {"name", ch.name}};
  if (!ch.description.empty()) g.metadata.push_back({"about", ch.description});
  g.metadata.push_back({ch.is_private() ? "private" : "public"});
  if (ch.type == engine::ChannelType::kDm) {
    g.metadata.push_back({"hidden"});
    for (const engine::ChannelMember* m : members) g.metadata.push_back({"p", engine::to_hex(m->pubkey)});
  }
  g.metadata.push_back({"closed"});
  g.metadata.push_back({"t", std::string(engine::channel_type_name(ch.type))});
  if (!ch.topic.empty()) g.metadata.push_back({"topic", ch.topic});
  if (!ch.purpose.empty()) g.metadata.push_back({"purpose", ch.purpose});
  if (ch.archived()) g.metadata.push_back({"archived", "true"});
  if (ch.ttl_seconds) {
    g.metadata.push_back({"ttl", std::to_string(ch.ttl_seconds)});
    g.metadata.push_back({"ttl_deadline", engine::rfc3339(ch.ttl_deadline)});
  }
  g.admins = {{"d", ch.id}};
  g.members = {{"d", ch.id}};
  for (const engine::ChannelMember* m : members) {
    std::string role(engine::channel_role_name(m->role));
    if (engine::is_elevated(m->role)) g.admins.push_back({"p", engine::to_hex(m->pubkey), role});
    if (g.members.size() <= 1000) g.members.push_back({"p", engine::to_hex(m->pubkey), "", role});
  }
  return g;
}

engine::Event group_state_gone(const engine::Keypair& relay_key, const std::string& channel, std::string reason,
                               uint64_t now) {
  const std::string address = ":" + engine::to_hex(relay_key.pubkey) + ":" + channel;
  constexpr uint16_t kState[] = {kind::kGroupMetadata, kind::kGroupAdmins, kind::kGroupMembers};
  std::vector<Tag> tags;
  for (uint16_t k : kState) tags.push_back({"a", std::to_string(k) + address});
  for (uint16_t k : kState) tags.push_back({"k", std::to_string(k)});
  return engine::signed_event(relay_key, kind::kDeletion, now, std::move(tags), std::move(reason));
}

engine::Result<std::vector<std::string>> channels_without_group_state(engine::EventStore& store,
                                                                      const engine::TeamState& team) {
  std::unordered_set<std::string> described;
  engine::Status scanned = store.scan_kind(kind::kGroupMetadata, [&](std::string_view, const engine::EventFields& f) {
    for (const engine::TagRef& t : f.tags) {
      if (t.name == 'd') described.emplace(t.value);
    }
  });
  if (!scanned) return engine::Error{scanned.error()};
  std::vector<std::string> out;
  for (std::string& id : team.live_channel_ids()) {
    if (!described.contains(id)) out.push_back(std::move(id));
  }
  return out;
}

engine::Result<ReconcileReport> reconcile_channels(engine::EventStore& store, const engine::TeamState& team,
                                                   const engine::Keypair& relay_key, uint64_t now) {
  auto missing = channels_without_group_state(store, team);
  if (!missing) return engine::Error{missing.error()};
  ReconcileReport report;
  report.already = team.live_channel_ids().size() - missing->size();
  for (const std::string& id : *missing) {
    GroupStateTags tags = group_state_tags(*team.channel(id), team.active_members(id));
    engine::Event events[3];
    const std::pair<uint16_t, std::vector<Tag>*> shapes[3] = {{kind::kGroupMetadata, &tags.metadata},
                                                              {kind::kGroupAdmins, &tags.admins},
                                                              {kind::kGroupMembers, &tags.members}};
    std::vector<engine::WriteRequest> requests;
    for (int i = 0; i < 3; ++i) {
      events[i] = engine::signed_event(relay_key, shapes[i].first, now, std::move(*shapes[i].second));
      requests.push_back({&events[i], id});
    }
    auto written = store.write(requests);
    if (!written) return engine::Error{"channel " + id + ": " + written.error()};
    ++report.reconciled;
  }
  return report;
}

}  // namespace buzz::server
