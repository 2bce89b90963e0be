// NIP-29 group administration, kinds 9000–9022 (docs/reference/channels.md §4). Reasons are
// the exact upstream texts; every check runs before anything is stored.
#include <cstdlib>
#include <cstring>
#include <set>

#include "engine/canonical.h"
#include "engine/kind_numbers.h"
#include "server/common/log.h"
#include "server/team/group_state.h"
#include "server/team/team_model.h"

namespace buzz::server {
namespace {

using engine::Channel;
using engine::ChannelMember;
using engine::ChannelRole;
using engine::Pubkey;

Admission invalid(std::string why) { return Admission::refused("invalid: " + std::move(why)); }

std::optional<ChannelRole> active_role(const ChannelMember* m) {
  if (!m || !m->active()) return std::nullopt;
  return m->role;
}

bool elevated(std::optional<ChannelRole> r) { return r && engine::is_elevated(*r); }

}  // namespace

Admission TeamModel::admin(const engine::Event& e, const Channel* ch, uint64_t now) {
  if (e.kind == kind::kCreateGroup) return create_channel(e, now);
  // Every other admin kind names a live channel that is not archived.
  bool unarchive = false;
  if (e.kind == kind::kEditMetadata) {
    for (const engine::Tag& t : e.tags) unarchive |= t.size() >= 2 && t[0] == "archived" && t[1] == "false";
  }
  if (ch->archived() && !unarchive) return invalid("channel is archived");
  // A DM is its participant set (docs/reference/channels.md §6): adding someone makes a new DM
  // (41011) and a participant hides it (41012) rather than leaving.
  bool membership_change = e.kind == kind::kPutUser || e.kind == kind::kRemoveUser || e.kind == kind::kLeaveRequest;
  if (ch->type == engine::ChannelType::kDm && membership_change) {
    return invalid("DM participants are fixed; use kind 41011 to add members or 41012 to hide it");
  }
  switch (e.kind) {
    case kind::kPutUser: return put_user(e, *ch, now);
    case kind::kRemoveUser: return remove_user(e, *ch, now);
    case kind::kEditMetadata: return edit_metadata(e, *ch, now);
    case kind::kDeleteEvent: return delete_event(e, *ch, now);
    case kind::kDeleteGroup: return delete_channel(e, *ch, now);
    case kind::kJoinRequest: return join(e, *ch, now);
    case kind::kLeaveRequest: return leave(e, *ch, now);
  }
  return Admission::refused("restricted: unknown event kind");
}

void TeamModel::add_member(Admission& a, const std::string& channel, const Pubkey& pk, ChannelRole role,
                           const Pubkey& by, uint64_t now) {
  ChannelMember m;
  if (const ChannelMember* old = team_.member(channel, pk)) {
    m = *old;  // a re-add revives the row: joined_at and invited_by keep their first values
  } else {
    m.pubkey = pk;
    m.joined_at = now;
    m.invited_by = by;
  }
  if (!m.active() || m.join_seq == 0) m.join_seq = team_.next_join_seq();
  m.role = role;
  m.removed_at = 0;
  m.removed_by = {};
  a.state.push_back(team_.put_member(channel, m));
}

void TeamModel::remove_member(Admission& a, const std::string& channel, const Pubkey& pk, const Pubkey& by,
                              uint64_t now) {
  ChannelMember m = *team_.member(channel, pk);
  m.removed_at = now;
  m.removed_by = by;
  a.state.push_back(team_.put_member(channel, m));
  a.revoked.push_back({channel, pk, "restricted: channel access revoked"});
}

Admission TeamModel::create_channel(const engine::Event& e, uint64_t now) {
  Channel ch;
  ch.name = e.first_tag_value("name");
  if (ch.name.find_first_not_of(" \t\r\n") == std::string::npos) return invalid("channel name is required");
  if (const engine::Tag* v = e.first_tag("visibility")) {
    auto parsed = engine::parse_visibility((*v)[1]);
    if (!parsed) return Admission::refused("invalid visibility: " + (*v)[1]);  // no colon after "invalid" (docs/reference/protocol.md §4)
    ch.visibility = *parsed;
  }
  if (const engine::Tag* t = e.first_tag("channel_type")) {
    auto parsed = engine::parse_channel_type((*t)[1]);
    // DMs are made by 41010 from their participant set, never by 9007 (docs/reference/channels.md §2).
    if (!parsed || *parsed == engine::ChannelType::kDm) return Admission::refused("invalid channel_type: " + (*t)[1]);
    ch.type = *parsed;
  }
  if (const engine::Tag* t = e.first_tag("about")) ch.description = (*t)[1];
  if (const engine::Tag* t = e.first_tag("ttl")) {
    char* end = nullptr;
    long ttl = ttl_override_ ? long(ttl_override_) : std::strtol((*t)[1].c_str(), &end, 10);
    if ((ttl_override_ || *end == '\0') && ttl > 0 && ttl <= INT32_MAX) {  // an unparseable value is treated as absent
      ch.ttl_seconds = uint32_t(ttl);
      ch.ttl_deadline = now + uint64_t(ttl);
    }
  }
  std::string_view h = e.first_tag_value("h");
  if (!h.empty()) {
    if (!engine::is_canonical_uuid(h)) return invalid("h tag must be a canonical lowercase UUID");
    if (team_.channel(h)) return Admission::refused("duplicate: channel already exists");
    ch.id = std::string(h);
  } else {
    ch.id = engine::random_uuid();
  }
  // Upstream stores a 9007 without h globally, which shows a private channel's
  // name to every relay user; here it always lives in the channel it created.
  Admission a;
  a.channel = ch.id;
  ch.created_by = e.pubkey;
  ch.created_at = now;
  a.state.push_back(team_.put_channel(ch));
  add_member(a, ch.id, e.pubkey, ChannelRole::kOwner, e.pubkey, now);
  audit(a, e, engine::kActionChannelCreated, ch.id,
        {{"channel_type", json_string(engine::channel_type_name(ch.type))},
         {"name", json_string(ch.name)},
         {"visibility", json_string(engine::visibility_name(ch.visibility))}});
  audit(a, e, engine::kActionMemberAdded, ch.id, {{"role", json_string("owner")}, {"target", json_string(e.pubkey_hex())}});
  emit_system(a, ch.id, {{"actor", json_string(e.pubkey_hex())}, {"type", json_string("channel_created")}}, now);
  emit_group_state(a, ch, now);
  emit_notice(a, kind::kMemberAddedNotification, e.pubkey, ch.id, e.pubkey, now);
  return a;
}

Admission TeamModel::put_user(const engine::Event& e, const Channel& ch, uint64_t now) {
  ChannelRole role = ChannelRole::kMember;
  if (const engine::Tag* t = e.first_tag("role")) {
    auto parsed = engine::parse_channel_role((*t)[1]);
    if (!parsed) return invalid("invalid role: " + (*t)[1]);
    role = *parsed;
  }
  auto actor = active_role(team_.member(ch.id, e.pubkey));
  if (ch.is_private() && !actor) return invalid("actor not authorized");
  // An elevated role needs an elevated granter, on open channels too.
  if (engine::is_elevated(role) && !elevated(actor)) return invalid("only owners/admins may grant elevated roles");
  auto target = e.first_pubkey_tag();
  if (!target) return invalid("missing p tag");
  if (*target != e.pubkey) {  // adding yourself is always allowed
    ProfileDirectory::AddRule rule = profiles_.add_rule(*target);
    if (rule.policy == AddPolicy::kNobody) return invalid("policy:nobody — this agent has disabled external channel additions");
    if (rule.policy == AddPolicy::kOwnerOnly) {
      if (!rule.owner) return invalid("policy:owner_only — agent has no owner set");
      if (*rule.owner != e.pubkey) return invalid("policy:owner_only — only the agent owner can add this agent");
    }
  }
  auto current = active_role(team_.member(ch.id, *target));
  Admission a;
  a.channel = ch.id;
  if (current) {
    // Upstream lets any member demote an owner through a plain re-add; here a
    // role change is an admin act (docs/reference/channels.md §4.1).
    if (*current == role) return a;  // idempotent: stored, nothing changes
    if (!elevated(actor)) return invalid("only owners/admins may change roles");
    if ((*current == ChannelRole::kOwner || role == ChannelRole::kOwner) && actor != ChannelRole::kOwner) {
      return invalid("only owners may change owner role");
    }
    if (*current == ChannelRole::kOwner && team_.active_owners(ch.id) <= 1) return invalid("cannot remove the last owner");
  }
  add_member(a, ch.id, *target, role, e.pubkey, now);
  audit(a, e, engine::kActionMemberAdded, ch.id,
        {{"role", json_string(engine::channel_role_name(role))}, {"target", json_string(engine::to_hex(*target))}});
  emit_system(a, ch.id,
              {{"actor", json_string(e.pubkey_hex())}, {"target", json_string(engine::to_hex(*target))}, {"type", json_string("member_joined")}},
              now);
  emit_group_state(a, *team_.channel(ch.id), now);
  emit_notice(a, kind::kMemberAddedNotification, *target, ch.id, e.pubkey, now);
  return a;
}

Admission TeamModel::remove_user(const engine::Event& e, const Channel& ch, uint64_t now) {
  auto target = e.first_pubkey_tag();
  if (!target) return invalid("missing p tag");
  auto actor = active_role(team_.member(ch.id, e.pubkey));
  auto current = active_role(team_.member(ch.id, *target));
  bool self = *target == e.pubkey;
  if (self && !actor) return invalid("actor is not an active member");
  if (!self && !elevated(actor)) return invalid("actor not authorized");
  if (!current) return invalid("target is not an active member");
  if (*current == ChannelRole::kOwner && team_.active_owners(ch.id) <= 1) return invalid("cannot remove the last owner");
  Admission a;
  a.channel = ch.id;
  remove_member(a, ch.id, *target, e.pubkey, now);
  audit(a, e, engine::kActionMemberRemoved, ch.id, {{"target", json_string(engine::to_hex(*target))}});
  emit_system(a, ch.id,
              {{"actor", json_string(e.pubkey_hex())},
               {"target", json_string(engine::to_hex(*target))},
               {"type", json_string(self ? "member_left" : "member_removed")}},
              now);
  emit_group_state(a, ch, now);
  emit_notice(a, kind::kMemberRemovedNotification, *target, ch.id, e.pubkey, now);
  return a;
}

Admission TeamModel::edit_metadata(const engine::Event& e, const Channel& current, uint64_t now) {
  static constexpr std::string_view kAdminTags[] = {"name", "about", "archived", "visibility", "ttl"};
  bool any = false, needs_admin = false;
  for (const engine::Tag& t : e.tags) {
    if (t.empty()) continue;
    bool admin_tag = std::find(std::begin(kAdminTags), std::end(kAdminTags), t[0]) != std::end(kAdminTags);
    any |= admin_tag || t[0] == "topic" || t[0] == "purpose";
    needs_admin |= admin_tag;
  }
  if (!any) {
    return invalid("kind:9002 must include at least one metadata tag (name, about, archived, topic, purpose, visibility, ttl)");
  }
  // A relay-signed edit with an actor tag acts for that actor (a workflow's set_channel_topic).
  const Pubkey acting = acting_for(e);
  auto actor = active_role(team_.member(current.id, acting));
  if (needs_admin && !elevated(actor)) return invalid("actor not authorized for name/about/archived/visibility/ttl changes");
  if (!actor) return invalid("not a member");

  Channel ch = current;
  Admission a;
  a.channel = ch.id;
  const std::string actor_hex = json_string(engine::to_hex(acting));
  std::vector<std::vector<std::pair<std::string, std::string>>> messages;
  for (const engine::Tag& t : e.tags) {
    if (t.empty()) continue;
    const std::string& name = t[0];
    const bool has_value = t.size() >= 2;
    const std::string value = has_value ? t[1] : "";
    if (name == "name" && has_value) {
      ch.name = value;
    } else if (name == "about" && has_value) {
      ch.description = value;
    } else if ((name == "topic" || name == "purpose") && has_value) {
      bool topic = name == "topic";
      (topic ? ch.topic : ch.purpose) = value;
      (topic ? ch.topic_set_by : ch.purpose_set_by) = acting;
      (topic ? ch.topic_set_at : ch.purpose_set_at) = now;
      messages.push_back({{"actor", actor_hex}, {name, json_string(value)}, {"type", json_string(name + "_changed")}});
    } else if (name == "visibility") {
      if (!has_value) return invalid("visibility tag must have a value");
      auto v = engine::parse_visibility(value);
      if (!v) return invalid("invalid visibility value: " + value + " (must be \"open\" or \"private\")");
      if (*v == engine::Visibility::kPrivate && !ch.is_private()) {
        a.revoked.push_back({ch.id, std::nullopt, "restricted: channel access revoked"});
      }
      ch.visibility = *v;
      messages.push_back({{"actor", actor_hex}, {"type", json_string("visibility_changed")}, {"visibility", json_string(value)}});
    } else if (name == "ttl") {
      if (!has_value) return invalid("ttl tag must have a value (seconds, or empty string to clear)");
      char* end = nullptr;
      long ttl = value.empty() ? 0 : std::strtol(value.c_str(), &end, 10);
      if (!value.empty() && (!end || *end != '\0' || ttl <= 0 || ttl > INT32_MAX)) {
        return invalid("invalid ttl value: " + value + " (must be a positive integer of seconds, or empty to clear)");
      }
      ch.ttl_seconds = uint32_t(ttl);
      ch.ttl_deadline = ttl ? now + uint64_t(ttl) : 0;
      messages.push_back(
          {{"actor", actor_hex}, {"ttl_seconds", ttl ? std::to_string(ttl) : "null"}, {"type", json_string("ttl_changed")}});
    } else if (name == "archived") {
      if (!has_value) return invalid("archived tag must have a value");
      if (value != "true" && value != "false") return invalid("invalid archived value: " + value + " (must be \"true\" or \"false\")");
      bool archive = value == "true";
      if (archive && ch.archived()) return invalid("channel is already archived");
      if (!archive && !ch.archived()) return invalid("channel is not archived");
      ch.archived_at = archive ? now : 0;
      if (!archive && ch.ttl_seconds) ch.ttl_deadline = now + ch.ttl_seconds;  // unarchiving restarts the TTL
      messages.push_back({{"actor", actor_hex}, {"type", json_string(archive ? "channel_archived" : "channel_unarchived")}});
    }
  }
  a.state.push_back(team_.put_channel(ch));
  std::string fields = "[";  // names only, never values (docs/reference/audit.md §5.2)
  for (const engine::Tag& t : e.tags) {
    bool metadata = !t.empty() && (t[0] == "topic" || t[0] == "purpose" ||
                                   std::find(std::begin(kAdminTags), std::end(kAdminTags), t[0]) != std::end(kAdminTags));
    if (metadata) fields += (fields.size() > 1 ? "," : "") + json_string(t[0]);
  }
  audit(a, e, engine::kActionChannelUpdated, ch.id, {{"fields", fields + "]"}});
  for (auto& msg : messages) emit_system(a, ch.id, std::move(msg), now);
  emit_group_state(a, ch, now);
  return a;
}

Admission TeamModel::delete_event(const engine::Event& e, const Channel& ch, uint64_t now) {
  size_t n_e = 0, n_a = 0;
  for (const engine::Tag& t : e.tags) {
    if (!t.empty() && t[0] == "e") ++n_e;
    if (!t.empty() && t[0] == "a") ++n_a;
  }
  if (n_e + n_a != 1) {
    return invalid("deletion events must reference exactly one target via e or a tag (got e=" + std::to_string(n_e) +
                  ", a=" + std::to_string(n_a) + ")");
  }
  engine::Id id;
  if (!engine::from_hex(e.first_tag_value("e"), &id)) return invalid("missing e tag for target event");
  auto target = store_.lookup(id);
  if (!target || target->deleted || (target->channel != ch.id && !knows_of(*target, e.pubkey))) {
    return invalid("target event not found");
  }
  if (target->channel.empty()) return invalid("target event has no channel");
  if (target->channel != ch.id) return invalid("target event belongs to a different channel");
  if (target->pubkey != e.pubkey && !elevated(active_role(team_.member(ch.id, e.pubkey)))) {
    return invalid("must be event author or channel owner/admin");
  }
  Admission a;
  a.channel = ch.id;
  a.deletes.push_back(id);
  lower_thread_counts(id, a);
  emit_system(a, ch.id,
              {{"actor", json_string(e.pubkey_hex())}, {"target_event_id", json_string(engine::to_hex(id))}, {"type", json_string("message_deleted")}},
              now);
  return a;
}

Admission TeamModel::delete_channel(const engine::Event& e, const Channel& current, uint64_t now) {
  if (active_role(team_.member(current.id, e.pubkey)) != ChannelRole::kOwner) return invalid("only owner can delete group");
  Admission a;
  a.channel = current.id;
  // The channel's group state goes with it.
  engine::Filter state;
  state.kinds = std::vector<uint16_t>{kind::kGroupMetadata, kind::kGroupAdmins, kind::kGroupMembers};
  state.authors = std::vector<Pubkey>{relay_key_.pubkey};
  state.tags.push_back({'h', {current.id}});
  (void)store_.query(state, {}, [&](std::string_view, const engine::EventFields& f) {
    a.deletes.push_back(engine::id_of(f));
  });
  // The last message reaches current subscribers; then their subscriptions end,
  // and all who could read the channel are told its group state is gone: every
  // relay user for an open channel, its members for a private one (Revocation).
  emit_system(a, current.id, {{"actor", json_string(e.pubkey_hex())}, {"type", json_string("channel_deleted")}}, now);
  if (current.is_private()) {
    for (const ChannelMember* m : team_.active_members(current.id)) {
      a.revoked.push_back({current.id, m->pubkey, "restricted: channel deleted"});
    }
  } else {
    a.revoked.push_back({current.id, std::nullopt, "restricted: channel deleted"});
  }
  Channel ch = current;
  ch.deleted_at = now;
  a.state.push_back(team_.put_channel(ch));
  audit(a, e, engine::kActionChannelDeleted, ch.id, {});
  return a;
}

Admission TeamModel::reap(uint64_t now) {
  Admission a;
  for (const std::string& id : team_.expired_channels(now)) auto_archive(a, *team_.channel(id), now);
  return a;
}

void TeamModel::auto_archive(Admission& a, Channel ch, uint64_t now) {
  ch.archived_at = now;
  a.state.push_back(team_.put_channel(ch));
  emit_system(a, ch.id, {{"type", json_string("channel_auto_archived")}}, now);
  emit_group_state(a, ch, now);
}

Admission TeamModel::change(const TeamChange& c, uint64_t now) {
  if (c.op == TeamChange::Op::kReconcile) return reconcile(c, now);
  const Channel* ch = team_.channel(c.channel);
  if (!ch || ch->deleted()) return Admission::refused("channel not found");
  Admission a;
  a.channel = ch->id;
  if (c.op == TeamChange::Op::kArchive) {
    if (!ch->archived()) auto_archive(a, *ch, now);
    return a;
  }
  if (ch->archived()) return Admission::refused("channel is archived");
  const ChannelMember* row = team_.member(ch->id, c.pubkey);
  if (active_role(row)) return a;
  // The parent's rules, as they stand now: an active member of a live parent;
  // and the add never undoes a removal by someone else (docs/access.md).
  const Channel* parent = team_.channel(c.parent);
  if (!parent || parent->deleted() || parent->archived() || !active_role(team_.member(c.parent, c.pubkey))) {
    return Admission::refused("not a member of the parent channel");
  }
  if (row && row->removed_by != c.pubkey) return Admission::refused("removed from the channel");
  // Invited by the huddle channel's creator (docs/reference/huddle.md §5), announced as any add is.
  const AuditCause cause{"", kind::kPutUser, ch->created_by};
  add_member(a, ch->id, c.pubkey, ChannelRole::kMember, ch->created_by, now);
  audit(a, cause, engine::kActionMemberAdded, ch->id,
        {{"role", json_string("member")}, {"target", json_string(engine::to_hex(c.pubkey))}});
  emit_group_state(a, *team_.channel(ch->id), now);
  emit_notice(a, kind::kMemberAddedNotification, c.pubkey, ch->id, ch->created_by, now);
  return a;
}

Admission TeamModel::reconcile(const TeamChange& c, uint64_t now) {
  // The one check that can fail, before anything changes.
  auto missing = channels_without_group_state(store_, team_);
  if (!missing) return Admission::refused(missing.error());
  Admission a;
  std::set<std::string> changed(missing->begin(), missing->end());
  size_t channels = 0, members = 0;
  for (const engine::StateWrite& w : c.rows) {  // channels first: a member row may come before its channel's
    Channel ch;
    if (w.table != engine::StateTable::kChannels || team_.channel(w.key) || !engine::decode_channel(w.value, &ch)) continue;
    ch.id = w.key;
    a.state.push_back(team_.put_channel(std::move(ch)));
    changed.insert(w.key);
    ++channels;
  }
  for (const engine::StateWrite& w : c.rows) {
    ChannelMember m;
    if (w.table != engine::StateTable::kChannelMembers || w.key.size() != 36 + 32 || !engine::decode_member(w.value, &m)) continue;
    const std::string channel = w.key.substr(0, 36);
    std::memcpy(m.pubkey.data(), w.key.data() + 36, 32);
    if (!team_.channel(channel) || team_.member(channel, m.pubkey)) continue;
    m.join_seq = team_.next_join_seq();
    a.state.push_back(team_.put_member(channel, m));
    changed.insert(channel);
    ++members;
  }
  for (const std::string& id : changed) {
    const Channel* ch = team_.channel(id);
    if (ch && !ch->deleted()) emit_group_state(a, *ch, now);
  }
  if (!changed.empty()) {
    log_info("team tables reconciled", {{"channels_added", std::to_string(channels)},
                                        {"members_added", std::to_string(members)},
                                        {"group_states", std::to_string(changed.size())}});
  }
  return a;
}

Admission TeamModel::join(const engine::Event& e, const Channel& ch, uint64_t now) {
  Admission a;
  a.channel = ch.id;
  if (active_role(team_.member(ch.id, e.pubkey))) return a;  // already a member: nothing follows
  add_member(a, ch.id, e.pubkey, ChannelRole::kMember, e.pubkey, now);
  audit(a, e, engine::kActionMemberAdded, ch.id, {{"role", json_string("member")}, {"target", json_string(e.pubkey_hex())}});
  emit_system(a, ch.id,
              {{"actor", json_string(e.pubkey_hex())}, {"target", json_string(e.pubkey_hex())}, {"type", json_string("member_joined")}}, now);
  emit_group_state(a, ch, now);
  emit_notice(a, kind::kMemberAddedNotification, e.pubkey, ch.id, e.pubkey, now);
  return a;
}

Admission TeamModel::leave(const engine::Event& e, const Channel& ch, uint64_t now) {
  auto actor = active_role(team_.member(ch.id, e.pubkey));
  if (!actor) return invalid("actor is not an active member");
  if (*actor == ChannelRole::kOwner && team_.active_owners(ch.id) <= 1) return invalid("cannot remove the last owner");
  Admission a;
  a.channel = ch.id;
  remove_member(a, ch.id, e.pubkey, e.pubkey, now);
  audit(a, e, engine::kActionMemberRemoved, ch.id, {{"target", json_string(e.pubkey_hex())}});
  emit_system(a, ch.id, {{"actor", json_string(e.pubkey_hex())}, {"type", json_string("member_left")}}, now);
  emit_group_state(a, ch, now);
  emit_notice(a, kind::kMemberRemovedNotification, e.pubkey, ch.id, e.pubkey, now);
  return a;
}

}  // namespace buzz::server
