// The `users` state row: what REST set for a user (docs/reference/rest-api.md §3.11), kept
// apart from the profile events. ProfileDirectory reads and writes it; the
// migration tool maps it to and from the upstream `users` table.
//   u8 version | u8 has_owner | owner[32] | u8 add_policy | policy_at_ms u64 (big-endian)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/hex.h"

namespace buzz::engine {

// Who may add an agent to a channel (docs/reference/kinds.md 10100, docs/reference/channels.md §4.1).
enum class AddPolicy : uint8_t { kAnyone, kOwnerOnly, kNobody };
std::string_view add_policy_name(AddPolicy p);
std::optional<AddPolicy> parse_add_policy(std::string_view s);

struct UserRecord {
  std::optional<Pubkey> agent_owner;
  AddPolicy channel_add_policy = AddPolicy::kAnyone;
  uint64_t policy_at_ms = 0;  // when the policy was set (0 = never)
};

std::string encode_user_record(const UserRecord& u);
bool decode_user_record(std::string_view value, UserRecord* out);

}  // namespace buzz::engine
