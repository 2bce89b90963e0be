// Relay membership (NIP-43, docs/reference/protocol.md §7): who may use a closed relay, with
// relay roles owner / admin / member (separate from channel roles).
//
// RelayMemberTable is the table wherever it lives: RelayMembers keeps it in the
// relay_members column family, migrate/pg_relay_members.h in PostgreSQL's
// relay_members. The server reads it through a snapshot kept in memory
// (RelayMemberSet) and changes it only from the store-writer thread; `buzz admin`
// changes it offline.
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

class RelayMemberTable {
 public:
  virtual ~RelayMemberTable() = default;

  // Every member, oldest first (the order of the 13534 list).
  virtual Result<std::vector<RelayMember>> list() const = 0;
  virtual std::optional<RelayMember> get(const Pubkey& pk) const = 0;
  virtual Status put(const RelayMember& m) = 0;
  // False if the pubkey was not a member.
  virtual Result<bool> remove(const Pubkey& pk) = 0;

  // Makes `owner` the one owner: upserts it and demotes any other owner to admin.
  virtual Status set_owner(const Pubkey& owner, uint64_t now) = 0;
};

// The rows set_owner changes: `owner` promoted (or added), any other owner demoted.
std::vector<RelayMember> owner_changes(const std::vector<RelayMember>& all, const Pubkey& owner, uint64_t now);

class RelayMembers final : public RelayMemberTable {
 public:
  explicit RelayMembers(RocksDatabase& db) : db_(db) {}

  Result<std::vector<RelayMember>> list() const override;
  std::optional<RelayMember> get(const Pubkey& pk) const override;
  Status put(const RelayMember& m) override;
  Result<bool> remove(const Pubkey& pk) override;
  Status set_owner(const Pubkey& owner, uint64_t now) override;

 private:
  RocksDatabase& db_;
};

}  // namespace buzz::engine
