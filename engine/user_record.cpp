// The users state row; see user_record.h.
#include "engine/user_record.h"

#include <cstring>

#include "engine/event_record.h"

namespace buzz::engine {
namespace {

constexpr uint8_t kUserRecordVersion = 1;
constexpr size_t kUserRecordBytes = 1 + 1 + 32 + 1 + 8;

}  // namespace

std::string_view add_policy_name(AddPolicy p) {
  switch (p) {
    case AddPolicy::kOwnerOnly: return "owner_only";
    case AddPolicy::kNobody: return "nobody";
    case AddPolicy::kAnyone: break;
  }
  return "anyone";
}

std::optional<AddPolicy> parse_add_policy(std::string_view s) {
  if (s == "anyone") return AddPolicy::kAnyone;
  if (s == "owner_only") return AddPolicy::kOwnerOnly;
  if (s == "nobody") return AddPolicy::kNobody;
  return std::nullopt;
}

std::string encode_user_record(const UserRecord& u) {
  std::string v;
  v.push_back(char(kUserRecordVersion));
  v.push_back(u.agent_owner ? 1 : 0);
  Pubkey owner = u.agent_owner.value_or(Pubkey{});
  v.append(reinterpret_cast<const char*>(owner.data()), owner.size());
  v.push_back(char(u.channel_add_policy));
  put_u64(&v, u.policy_at_ms);
  return v;
}

bool decode_user_record(std::string_view v, UserRecord* out) {
  if (v.size() != kUserRecordBytes || uint8_t(v[0]) != kUserRecordVersion || uint8_t(v[34]) > uint8_t(AddPolicy::kNobody)) {
    return false;
  }
  *out = UserRecord{};
  if (v[1]) {
    Pubkey owner;
    std::memcpy(owner.data(), v.data() + 2, owner.size());
    out->agent_owner = owner;
  }
  out->channel_add_policy = AddPolicy(v[34]);
  out->policy_at_ms = get_u64(v.data() + 35);
  return true;
}

}  // namespace buzz::engine
