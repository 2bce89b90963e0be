// Relay membership (NIP-43, protocol.md §7): who may use a closed relay, with
// relay roles owner / admin / member (separate from channel roles).
//
// The table lives in the relay_members column family. The server reads it
// through a snapshot kept in memory (RelayMemberSet) and changes it only from
// the store-writer thread; `buzz admin` changes it offline.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "engine/hex.h"
#include "engine/result.h"
#include "engine/rocks_database.h"

namespace buzz::engine {

enum class RelayRole : uint8_t { kMember = 0, kAdmin = 1, kOwner = 2 };

std::string_view relay_role_name(RelayRole r);
std::optional<RelayRole> parse_relay_role(std::string_view s);

struct RelayMember {
  Pubkey pubkey{};
  RelayRole role = RelayRole::kMember;
  std::optional<Pubkey> added_by;
  uint64_t created_at = 0;
  uint64_t updated_at = 0;
};

class RelayMembers {
 public:
  explicit RelayMembers(RocksDatabase& db) : db_(db) {}

  // Every member, oldest first (the order of the 13534 list).
  Result<std::vector<RelayMember>> list() const;
  std::optional<RelayMember> get(const Pubkey& pk) const;
  Status put(const RelayMember& m);
  // False if the pubkey was not a member.
  Result<bool> remove(const Pubkey& pk);

  // Makes `owner` the one owner: upserts it and demotes any other owner to admin.
  Status set_owner(const Pubkey& owner, uint64_t now);

 private:
  RocksDatabase& db_;
};

}  // namespace buzz::engine
