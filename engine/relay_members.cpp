// Relay membership table; see relay_members.h.
// Value: u8 role | u8 has_added_by | added_by[32] | created_at u64 | updated_at u64.
#include "engine/relay_members.h"

#include <algorithm>
#include <cstring>

#include "engine/event_record.h"

namespace buzz::engine {
namespace {

constexpr size_t kValueBytes = 1 + 1 + 32 + 8 + 8;

std::string encode(const RelayMember& m) {
  std::string v;
  v.push_back(char(m.role));
  v.push_back(m.added_by ? 1 : 0);
  v.append(32, '\0');
  if (m.added_by) std::memcpy(v.data() + 2, m.added_by->data(), 32);
  put_u64(&v, m.created_at);
  put_u64(&v, m.updated_at);
  return v;
}

bool decode(rocksdb::Slice key, rocksdb::Slice v, RelayMember* m) {
  if (key.size() != 32 || v.size() != kValueBytes || uint8_t(v[0]) > 2) return false;
  std::memcpy(m->pubkey.data(), key.data(), 32);
  m->role = RelayRole(v[0]);
  if (v[1]) {
    m->added_by.emplace();
    std::memcpy(m->added_by->data(), v.data() + 2, 32);
  }
  m->created_at = get_u64(v.data() + 34);
  m->updated_at = get_u64(v.data() + 42);
  return true;
}

}  // namespace

std::string_view relay_role_name(RelayRole r) {
  switch (r) {
    case RelayRole::kOwner: return "owner";
    case RelayRole::kAdmin: return "admin";
    case RelayRole::kMember: return "member";
  }
  return "member";
}

std::optional<RelayRole> parse_relay_role(std::string_view s) {
  if (s == "owner") return RelayRole::kOwner;
  if (s == "admin") return RelayRole::kAdmin;
  if (s == "member") return RelayRole::kMember;
  return std::nullopt;
}

Result<std::vector<RelayMember>> RelayMembers::list() const {
  std::vector<RelayMember> out;
  std::unique_ptr<rocksdb::Iterator> it(
      db_.db()->NewIterator(rocksdb::ReadOptions(), db_.family(Family::kRelayMembers)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    RelayMember m;
    if (decode(it->key(), it->value(), &m)) out.push_back(m);
  }
  if (!it->status().ok()) return Error{"error: reading relay members: " + it->status().ToString()};
  std::stable_sort(out.begin(), out.end(),
                   [](const RelayMember& a, const RelayMember& b) { return a.created_at < b.created_at; });
  return out;
}

std::optional<RelayMember> RelayMembers::get(const Pubkey& pk) const {
  std::string v;
  RelayMember m;
  if (!db_.db()->Get(rocksdb::ReadOptions(), db_.family(Family::kRelayMembers), pubkey_bytes(pk), &v).ok()) return {};
  if (!decode(pubkey_bytes(pk), v, &m)) return {};
  return m;
}

Status RelayMembers::put(const RelayMember& m) {
  auto s = db_.db()->Put(db_.write_options(), db_.family(Family::kRelayMembers), pubkey_bytes(m.pubkey), encode(m));
  if (!s.ok()) return Error{"error: writing relay member: " + s.ToString()};
  return {};
}

Result<bool> RelayMembers::remove(const Pubkey& pk) {
  if (!get(pk)) return false;
  auto s = db_.db()->Delete(db_.write_options(), db_.family(Family::kRelayMembers), pubkey_bytes(pk));
  if (!s.ok()) return Error{"error: removing relay member: " + s.ToString()};
  return true;
}

std::vector<RelayMember> owner_changes(const std::vector<RelayMember>& all, const Pubkey& owner, uint64_t now) {
  std::vector<RelayMember> changed;
  bool present = false;
  for (RelayMember m : all) {
    if (m.pubkey == owner) {
      present = true;
      if (m.role == RelayRole::kOwner) continue;
      m.role = RelayRole::kOwner;
    } else if (m.role == RelayRole::kOwner) {
      m.role = RelayRole::kAdmin;  // owner rotation (docs/reference/protocol.md §7.1)
    } else {
      continue;
    }
    m.updated_at = now;
    changed.push_back(m);
  }
  if (!present) changed.push_back(RelayMember{owner, RelayRole::kOwner, std::nullopt, now, now});
  return changed;
}

Status RelayMembers::set_owner(const Pubkey& owner, uint64_t now) {
  auto all = list();
  if (!all) return Error{all.error()};
  rocksdb::WriteBatch batch;
  for (const RelayMember& m : owner_changes(*all, owner, now)) {
    (void)batch.Put(db_.family(Family::kRelayMembers), pubkey_bytes(m.pubkey), encode(m));
  }
  auto s = db_.db()->Write(db_.write_options(), &batch);
  if (!s.ok()) return Error{"error: writing relay owner: " + s.ToString()};
  return {};
}

}  // namespace buzz::engine
