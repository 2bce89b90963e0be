// NIP-43 relay membership; see relay_membership.h. Rule texts are docs/reference/protocol.md §7.3 / §7.5.
#include "server/access/relay_membership.h"

#include <cstdlib>
#include <mutex>

#include "engine/clock.h"
#include "engine/kind_numbers.h"

namespace buzz::server {
namespace {

using engine::RelayRole;

RelayMembership::Outcome invalid(std::string reason) { return {false, "invalid: " + std::move(reason), {}, {}}; }

}  // namespace

engine::Status RelayMembership::load() {
  auto all = table_.list();
  if (!all) return engine::Error{all.error()};
  std::unique_lock lock(mu_);
  roles_.clear();
  for (const auto& m : *all) roles_[m.pubkey] = m.role;
  return {};
}

engine::Result<std::vector<engine::Pubkey>> RelayMembership::reload() {
  std::unordered_map<engine::Pubkey, RelayRole, engine::KeyBytesHash> before;
  {
    std::shared_lock lock(mu_);
    before = roles_;
  }
  if (auto s = load(); !s) return engine::Error{s.error()};
  std::vector<engine::Pubkey> lost;
  for (const auto& [pk, r] : before) {
    if (!role(pk)) lost.push_back(pk);
  }
  return lost;
}

std::optional<RelayRole> RelayMembership::role(const engine::Pubkey& pk) const {
  std::shared_lock lock(mu_);
  auto it = roles_.find(pk);
  if (it == roles_.end()) return std::nullopt;
  return it->second;
}

void RelayMembership::cache(const engine::Pubkey& pk, std::optional<RelayRole> role) {
  std::unique_lock lock(mu_);
  if (role) roles_[pk] = *role;
  else roles_.erase(pk);
}

engine::Event RelayMembership::signed_event(uint16_t kind, uint64_t created_at, std::vector<engine::Tag> tags) {
  return engine::signed_event(relay_key_, kind, created_at, std::move(tags));
}

engine::Event RelayMembership::membership_list(uint64_t now) {
  // Two lists in one second must still replace in order (docs/reference/protocol.md §10).
  last_list_at_ = std::max(now, last_list_at_ + 1);
  std::vector<engine::Tag> tags = {{"-"}};
  if (auto all = table_.list()) {
    for (const auto& m : *all) tags.push_back({"member", engine::to_hex(m.pubkey), std::string(relay_role_name(m.role))});
  }
  return signed_event(kind::kRelayMembershipList, last_list_at_, std::move(tags));
}

RelayMembership::Outcome RelayMembership::apply(const engine::Event& e, uint64_t now) {
  return e.kind == kind::kLeaveRelay ? apply_leave(e, now) : apply_admin(e, now);
}

RelayMembership::Outcome RelayMembership::apply_admin(const engine::Event& e, uint64_t now) {
  int64_t d = engine::seconds_from(now, e.created_at);
  if (std::llabs(d) > 120) {
    return invalid("event timestamp out of range: created_at=" + std::to_string(e.created_at) + ", now=" +
                std::to_string(now) + ", delta=" + std::to_string(d) + "s (max ±120s)");
  }
  auto target = e.first_pubkey_tag();
  if (!target) return invalid("missing or invalid p tag");
  auto actor_role = role(e.pubkey);
  auto target_row = table_.get(*target);
  std::string target_hex = engine::to_hex(*target);
  std::string_view role_tag = e.first_tag_value("role");
  Outcome out{true, "", {}, {}};

  if (e.kind == kind::kAddRelayMember) {
    if (!actor_role || *actor_role == RelayRole::kMember) return invalid("actor not authorized: must be admin or owner");
    std::string role_text = role_tag.empty() ? "member" : std::string(role_tag);
    if (role_text == "owner") return invalid("invalid role: use kind:9032 to promote to owner");
    auto new_role = engine::parse_relay_role(role_text);
    if (!new_role) return invalid("invalid role: " + role_text);
    if (*new_role == RelayRole::kAdmin && *actor_role != RelayRole::kOwner) {
      return invalid("actor not authorized: only owner can grant admin role");
    }
    if (target_row) return out;  // already present: a silent no-op, role unchanged
    engine::RelayMember m{*target, *new_role, e.pubkey, now, now};
    if (auto s = table_.put(m); !s) return {false, "error: internal server error", {}, {}};
    cache(*target, *new_role);
    out.emitted.push_back(signed_event(kind::kRelayMemberAdded, now, {{"-"}, {"p", target_hex}}));
    out.emitted.push_back(membership_list(now));
    return out;
  }
  if (e.kind == kind::kRemoveRelayMember) {
    if (!actor_role || *actor_role == RelayRole::kMember) return invalid("actor not authorized: must be admin or owner");
    if (*target == e.pubkey) return invalid("cannot remove yourself");
    if (target_row && target_row->role == RelayRole::kOwner) return invalid("cannot remove the relay owner");
    if (!target_row) return invalid("member not found: " + target_hex);
    if (*actor_role == RelayRole::kAdmin && target_row->role != RelayRole::kMember) {
      return invalid("actor not authorized: admins can only remove members");
    }
    if (auto r = table_.remove(*target); !r) return {false, "error: internal server error", {}, {}};
    cache(*target, std::nullopt);
    out.removed = *target;
    out.emitted.push_back(signed_event(kind::kRelayMemberRemoved, now, {{"-"}, {"p", target_hex}}));
    out.emitted.push_back(membership_list(now));
    return out;
  }
  // 9032 change role
  if (!actor_role || *actor_role != RelayRole::kOwner) return invalid("actor not authorized: must be owner");
  if (*target == e.pubkey) return invalid("cannot change your own role");
  if (role_tag.empty()) return invalid("missing role tag");
  if (role_tag == "owner") return invalid("cannot set role to owner");
  auto new_role = engine::parse_relay_role(role_tag);
  if (!new_role) return invalid("invalid role: " + std::string(role_tag));
  if (target_row && target_row->role == RelayRole::kOwner) return invalid("cannot change the relay owner's role");
  if (!target_row) return invalid("member not found: " + target_hex);
  target_row->role = *new_role;
  target_row->updated_at = now;
  if (auto s = table_.put(*target_row); !s) return {false, "error: internal server error", {}, {}};
  cache(*target, *new_role);
  out.emitted.push_back(membership_list(now));
  return out;
}

RelayMembership::Outcome RelayMembership::apply_leave(const engine::Event& e, uint64_t now) {
  if (!enforced_) return invalid("relay membership is not enabled");
  int64_t d = engine::seconds_from(now, e.created_at);
  if (std::llabs(d) > 120) {
    return invalid("leave request timestamp out of range (delta=" + std::to_string(d) + "s, max ±120s)");
  }
  bool is_protected = false;
  for (const engine::Tag& t : e.tags) is_protected |= t.size() >= 1 && t[0] == "-";
  if (!is_protected) return invalid("leave request must include NIP-70 protected event tag [\"-\"]");
  auto row = table_.get(e.pubkey);
  if (!row) return invalid("you are not a relay member");
  if (row->role == RelayRole::kOwner) return invalid("relay owner cannot leave");
  if (auto r = table_.remove(e.pubkey); !r) return {false, "error: internal server error", {}, {}};
  cache(e.pubkey, std::nullopt);
  Outcome out{true, "info: you have left this relay", {}, e.pubkey};
  out.emitted.push_back(signed_event(kind::kRelayMemberRemoved, now, {{"-"}, {"p", engine::to_hex(e.pubkey)}}));
  out.emitted.push_back(membership_list(now));
  return out;
}

}  // namespace buzz::server
