// The in-memory team state; see team_state.h.
#include "engine/team_state.h"

#include <algorithm>
#include <mutex>

namespace buzz::engine {

Status TeamState::load(EventStore& store) {
  auto version = store.team_changes(UINT64_MAX);
  if (!version) return Error{"error: reading the team version: " + version.error()};
  decltype(channels_) channels;
  std::string bad;
  Status s = store.scan_state(StateTable::kChannels, [&](std::string_view key, std::string_view value) {
    Channel c;
    if (!decode_channel(value, &c) || c.id != key) bad = std::string(key);
    else channels[c.id].channel = std::move(c);
  });
  if (!s) return s;
  if (!bad.empty()) return Error{"error: unreadable channel record " + bad};
  uint64_t max_seq = 0;
  s = store.scan_state(StateTable::kChannelMembers, [&](std::string_view key, std::string_view value) {
    ChannelMember m;
    auto it = key.size() > 32 ? channels.find(key.substr(0, key.size() - 32)) : channels.end();
    if (it == channels.end() || !decode_member(value, &m)) {
      bad = "member of " + std::string(key.substr(0, 36));
      return;
    }
    max_seq = std::max(max_seq, m.join_seq);
    it->second.members[m.pubkey] = m;
  });
  if (!s) return s;
  if (!bad.empty()) return Error{"error: unreadable channel record " + bad};
  std::unique_lock lock(mu_);
  channels_ = std::move(channels);
  dm_by_hash_.clear();
  for (const auto& [id, e] : channels_) {
    if (!e.channel.participant_hash.empty() && !e.channel.deleted()) dm_by_hash_[e.channel.participant_hash] = id;
  }
  join_seq_ = max_seq;
  version_ = version->version;
  return {};
}

Result<std::vector<std::string>> TeamState::catch_up(EventStore& store,
                                                     const std::function<void(const std::string&)>& before) {
  auto changes = store.team_changes(version_);
  if (!changes) return Error{changes.error()};
  for (const std::string& id : changes->channels) {
    before(id);
    if (Status s = reload_channel(store, id); !s) return Error{s.error()};
  }
  version_ = std::max(version_, changes->version);
  return std::move(changes->channels);
}

Status TeamState::reload_channel(EventStore& store, const std::string& id) {
  Entry fresh;
  std::optional<std::string> record = store.get_state(StateTable::kChannels, id);
  if (record && (!decode_channel(*record, &fresh.channel) || fresh.channel.id != id)) {
    return Error{"error: unreadable channel record " + id};
  }
  std::string bad;
  uint64_t max_seq = 0;
  Status s = store.scan_state_prefix(StateTable::kChannelMembers, id, [&](std::string_view key, std::string_view value) {
    ChannelMember m;
    if (key.size() != id.size() + 32 || !decode_member(value, &m)) bad = "member of " + id;
    max_seq = std::max(max_seq, m.join_seq);
    fresh.members[m.pubkey] = m;
  });
  if (!s) return s;
  if (!bad.empty()) return Error{"error: unreadable channel record " + bad};
  std::unique_lock lock(mu_);
  auto it = channels_.find(id);
  if (it != channels_.end()) {
    auto dm = dm_by_hash_.find(it->second.channel.participant_hash);
    if (dm != dm_by_hash_.end() && dm->second == id) dm_by_hash_.erase(dm);
  }
  if (!record) {
    if (it != channels_.end()) channels_.erase(it);
    return {};
  }
  if (!fresh.channel.participant_hash.empty() && !fresh.channel.deleted()) {
    dm_by_hash_[fresh.channel.participant_hash] = id;
  }
  channels_[id] = std::move(fresh);
  join_seq_ = std::max(join_seq_, max_seq);
  return {};
}

const TeamState::Entry* TeamState::find(std::string_view id) const {
  auto it = channels_.find(id);
  return it == channels_.end() ? nullptr : &it->second;
}

ChannelAccess TeamState::access(std::string_view channel, const Pubkey& pk) const {
  std::shared_lock lock(mu_);
  ChannelAccess a;
  const Entry* e = find(channel);
  if (!e || e->channel.deleted()) return a;
  a.exists = true;
  a.archived = e->channel.archived();
  a.visibility = e->channel.visibility;
  auto m = e->members.find(pk);
  if (m != e->members.end() && m->second.active()) a.role = m->second.role;
  return a;
}

// These two serve live delivery, which still reaches a just-deleted channel's
// subscribers with its last message (docs/reference/channels.md §4.6), so deletion is not checked.
bool TeamState::is_private(std::string_view channel) const {
  std::shared_lock lock(mu_);
  const Entry* e = find(channel);
  return !e || e->channel.is_private();  // unknown = the strict answer
}

bool TeamState::is_member(std::string_view channel, const Pubkey& pk) const {
  std::shared_lock lock(mu_);
  const Entry* e = find(channel);
  if (!e) return false;
  auto m = e->members.find(pk);
  return m != e->members.end() && m->second.active();
}

std::vector<std::string> TeamState::readable_channels(const Pubkey& pk) const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  for (const auto& [id, e] : channels_) {
    if (e.channel.deleted()) continue;
    auto m = e.members.find(pk);
    if (!e.channel.is_private() || (m != e.members.end() && m->second.active())) out.push_back(id);
  }
  return out;
}

std::unordered_set<Pubkey, KeyBytesHash> TeamState::co_members(const Pubkey& pk) const {
  std::shared_lock lock(mu_);
  std::unordered_set<Pubkey, KeyBytesHash> out = {pk};
  for (const auto& [id, e] : channels_) {
    auto self = e.members.find(pk);
    if (e.channel.deleted() || self == e.members.end() || !self->second.active()) continue;
    for (const auto& [other, m] : e.members) {
      if (m.active()) out.insert(other);
    }
  }
  return out;
}

std::vector<std::pair<std::string, Pubkey>> TeamState::role_holders(ChannelRole role) const {
  std::shared_lock lock(mu_);
  std::vector<std::pair<std::string, Pubkey>> out;
  for (const auto& [id, e] : channels_) {
    if (e.channel.deleted()) continue;
    for (const auto& [pk, m] : e.members) {
      if (m.active() && m.role == role) out.emplace_back(id, pk);
    }
  }
  return out;
}

std::optional<Channel> TeamState::find_channel(std::string_view id) const {
  std::shared_lock lock(mu_);
  const Entry* e = find(id);
  if (!e || e->channel.deleted()) return std::nullopt;
  return e->channel;
}

std::vector<ChannelMember> TeamState::members_of(std::string_view id) const {
  std::shared_lock lock(mu_);
  std::vector<ChannelMember> out;
  for (const ChannelMember* m : active_members(id)) out.push_back(*m);
  return out;
}

const Channel* TeamState::channel(std::string_view id) const {
  const Entry* e = find(id);
  return e ? &e->channel : nullptr;
}

const ChannelMember* TeamState::member(std::string_view channel, const Pubkey& pk) const {
  const Entry* e = find(channel);
  if (!e) return nullptr;
  auto it = e->members.find(pk);
  return it == e->members.end() ? nullptr : &it->second;
}

std::vector<const ChannelMember*> TeamState::active_members(std::string_view channel) const {
  std::vector<const ChannelMember*> out;
  const Entry* e = find(channel);
  if (!e) return out;
  for (const auto& [pk, m] : e->members) {
    if (m.active()) out.push_back(&m);
  }
  std::sort(out.begin(), out.end(), [](const ChannelMember* a, const ChannelMember* b) { return a->join_seq < b->join_seq; });
  return out;
}

size_t TeamState::active_owners(std::string_view channel) const {
  const Entry* e = find(channel);
  if (!e) return 0;
  return size_t(std::count_if(e->members.begin(), e->members.end(),
                              [](const auto& kv) { return kv.second.active() && kv.second.role == ChannelRole::kOwner; }));
}

const Channel* TeamState::dm_by_hash(std::string_view participant_hash) const {
  auto it = dm_by_hash_.find(std::string(participant_hash));
  return it == dm_by_hash_.end() ? nullptr : channel(it->second);
}

std::vector<std::string> TeamState::live_channel_ids() const {
  std::vector<std::string> out;
  for (const auto& [id, e] : channels_) {
    if (!e.channel.deleted()) out.push_back(id);
  }
  return out;
}

std::vector<std::string> TeamState::expired_channels(uint64_t now) const {
  std::vector<std::string> out;
  for (const auto& [id, e] : channels_) {
    const Channel& c = e.channel;
    if (c.ttl_seconds && c.ttl_deadline <= now && !c.archived() && !c.deleted()) out.push_back(id);
  }
  return out;
}

StateWrite TeamState::put_channel(Channel c) {
  StateWrite w{StateTable::kChannels, c.id, encode_channel(c)};
  std::unique_lock lock(mu_);
  if (!c.participant_hash.empty()) {
    if (c.deleted()) dm_by_hash_.erase(c.participant_hash);
    else dm_by_hash_[c.participant_hash] = c.id;
  }
  std::string id = c.id;
  channels_[id].channel = std::move(c);
  return w;
}

StateWrite TeamState::put_member(std::string_view channel, ChannelMember m) {
  StateWrite w{StateTable::kChannelMembers, member_key(channel, m.pubkey), encode_member(m)};
  std::unique_lock lock(mu_);
  channels_[std::string(channel)].members[m.pubkey] = m;
  return w;
}

}  // namespace buzz::engine
