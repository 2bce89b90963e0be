// Direct messages, command kinds 41010–41012 (channels.md §6): a DM is a
// private channel whose identity is its participant set. Commands are stored
// for idempotency, never fanned out, and answer with a result in the OK.
#include <algorithm>

#include "engine/canonical.h"
#include "server/team_model.h"

namespace buzz::server {
namespace {

using engine::Pubkey;

constexpr size_t kMaxDmParticipants = 9;

// The p-tagged pubkeys, or the refusal naming the first bad one.
std::optional<std::string> p_keys(const engine::Event& e, std::vector<Pubkey>* out) {
  for (const engine::Tag& t : e.tags) {
    if (t.size() < 2 || t[0] != "p") continue;
    if (t[1].find_first_not_of("0123456789abcdefABCDEF") != std::string::npos || t[1].size() % 2) {
      return "invalid: bad pubkey hex: " + t[1];
    }
    Pubkey pk;
    if (t[1].size() != 64 || !engine::from_hex_any_case(t[1], pk.data(), 32)) return "invalid: pubkey must be 32 bytes: " + t[1];
    out->push_back(pk);
  }
  return std::nullopt;
}

std::string participant_hash(std::vector<Pubkey>& set) {
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  std::string bytes;
  for (const Pubkey& pk : set) bytes.append(reinterpret_cast<const char*>(pk.data()), 32);
  uint8_t digest[32];
  engine::sha256(bytes.data(), bytes.size(), digest);
  return engine::to_hex(digest, sizeof digest);
}

}  // namespace

Admission TeamModel::open_dm(const engine::Event& e, std::vector<Pubkey> others, bool announce, uint64_t now,
                             std::string* channel_id, bool* created) {
  const Pubkey& sender = e.pubkey;
  std::vector<Pubkey> set = std::move(others);
  set.push_back(sender);
  std::string hash = participant_hash(set);
  Admission a;
  a.fanout = false;
  if (const engine::Channel* existing = team_.dm_by_hash(hash)) {
    *channel_id = existing->id;
    *created = false;
    // Every participant has had a row since the DM was made, and DM membership never changes.
    engine::ChannelMember m = *team_.member(existing->id, sender);
    if (m.hidden_at) {
      m.hidden_at = 0;
      a.state.push_back(team_.put_member(existing->id, m));
    }
    emit_dm_visibility(a, sender, now);
    return a;
  }
  engine::Channel ch;
  ch.id = engine::random_uuid();
  ch.name = set.size() == 2 ? "DM" : "Group DM (" + std::to_string(set.size()) + ")";
  ch.type = engine::ChannelType::kDm;
  ch.visibility = engine::Visibility::kPrivate;
  ch.created_by = sender;
  ch.created_at = now;
  ch.participant_hash = hash;
  a.state.push_back(team_.put_channel(ch));
  audit(a, e, engine::kActionChannelCreated, ch.id,
        {{"channel_type", json_string("dm")}, {"name", json_string(ch.name)}, {"visibility", json_string("private")}});
  std::string participants = "[";
  for (const Pubkey& pk : set) {
    add_member(a, ch.id, pk, engine::ChannelRole::kMember, sender, now);
    audit(a, e, engine::kActionMemberAdded, ch.id, {{"role", json_string("member")}, {"target", json_string(engine::to_hex(pk))}});
    if (participants.size() > 1) participants += ',';
    participants += json_string(engine::to_hex(pk));
  }
  if (announce) {
    emit_system(a, ch.id, {{"actor", json_string(engine::to_hex(sender))}, {"participants", participants + "]"},
                           {"type", json_string("dm_created")}}, now);
  }
  emit_group_state(a, ch, now);
  for (const Pubkey& pk : set) emit_notice(a, 44100, pk, ch.id, sender, now);
  emit_dm_created(a, ch, sender, now);
  *channel_id = ch.id;
  *created = true;
  return a;
}

Admission TeamModel::dm_command(const engine::Event& e, uint64_t now) {
  std::vector<Pubkey> keys;
  if (e.kind == 41010) {
    if (auto bad = p_keys(e, &keys)) return Admission::refused(*bad);
    std::erase(keys, e.pubkey);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (keys.empty()) return Admission::refused("invalid: pubkeys must contain at least 1 other participant");
    if (keys.size() > kMaxDmParticipants - 1) return Admission::refused("invalid: pubkeys may contain at most 8 other participants (9 total)");
    std::string id;
    bool created = false;
    Admission a = open_dm(e, std::move(keys), true, now, &id, &created);
    // Stored in the DM itself rather than globally, so only its participants can
    // read who opened a DM with whom.
    a.channel = id;
    a.reason = "response:" + json_object({{"channel_id", json_string(id)}, {"created", std::string(created ? "true" : "false")}});
    return a;
  }

  std::string_view h = e.first_tag_value("h");
  if (h.empty()) return Admission::refused("invalid: missing h tag (channel_id)");
  if (!engine::is_canonical_uuid(h)) return Admission::refused("invalid: bad channel_id format");
  const engine::Channel* dm = team_.channel(h);
  if (!dm || dm->deleted()) return Admission::refused("invalid: DM not found");
  if (dm->type != engine::ChannelType::kDm) return Admission::refused("invalid: channel is not a DM");
  const engine::ChannelMember* self = team_.member(dm->id, e.pubkey);
  if (!self || !self->active()) return Admission::refused("forbidden: not a member of this DM");

  if (e.kind == 41012) {
    Admission a;
    a.channel = dm->id;
    a.fanout = false;
    engine::ChannelMember m = *self;
    if (!m.hidden_at) {
      m.hidden_at = now;
      a.state.push_back(team_.put_member(dm->id, m));
    }
    emit_dm_visibility(a, e.pubkey, now);
    a.reason = "{}";  // the exact upstream reason for a hide (protocol.md §4)
    return a;
  }
  // 41011: participant sets never change; existing ∪ new is a different DM.
  if (auto bad = p_keys(e, &keys)) return Admission::refused(*bad);
  std::vector<Pubkey> set;
  for (const engine::ChannelMember* m : team_.active_members(dm->id)) set.push_back(m->pubkey);
  size_t before = set.size();
  for (const Pubkey& pk : keys) {
    if (std::find(set.begin(), set.end(), pk) == set.end()) set.push_back(pk);
  }
  if (set.size() == before) return Admission::refused("invalid: must specify at least 1 new participant in p tags");
  if (set.size() > kMaxDmParticipants) return Admission::refused("invalid: DM supports at most 9 participants");
  std::erase(set, e.pubkey);
  std::string id;
  bool created = false;
  Admission a = open_dm(e, std::move(set), false, now, &id, &created);
  a.channel = dm->id;
  a.reason = "response:" + json_object({{"channel_id", json_string(id)}});
  return a;
}

}  // namespace buzz::server
