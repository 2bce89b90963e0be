// Relay members (NIP-43) and the legacy pubkey allow-list in PostgreSQL's
// upstream tables, relay_members and pubkey_allowlist (docs/reference/compat-backends.md §1.2),
// for `buzz serve --store postgres://…`: an original's members are served as
// they are, and every node sees one table.
#pragma once

#include "engine/pubkey_allowlist.h"
#include "engine/relay_members.h"
#include "migrate/pg_thread_connections.h"

namespace buzz::migrate {

class PgRelayMembers final : public engine::RelayMemberTable {
 public:
  explicit PgRelayMembers(PgThreadConnections& conns) : conns_(conns) {}

  engine::Result<std::vector<engine::RelayMember>> list() const override;
  std::optional<engine::RelayMember> get(const engine::Pubkey& pk) const override;
  engine::Status put(const engine::RelayMember& m) override;
  engine::Result<bool> remove(const engine::Pubkey& pk) override;
  // One transaction, under a lock of its own, so two nodes starting with
  // different owners still leave one.
  engine::Status set_owner(const engine::Pubkey& owner, uint64_t now) override;

 private:
  engine::Result<std::vector<engine::RelayMember>> select(const std::string& where, const std::vector<std::string>& params) const;
  PgThreadConnections& conns_;
};

class PgPubkeyAllowlist final : public engine::PubkeyAllowlistTable {
 public:
  explicit PgPubkeyAllowlist(PgThreadConnections& conns) : conns_(conns) {}
  engine::Result<std::vector<engine::AllowedPubkey>> list() const override;

 private:
  PgThreadConnections& conns_;
};

}  // namespace buzz::migrate
