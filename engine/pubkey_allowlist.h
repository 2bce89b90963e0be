// The legacy pubkey allow-list (docs/reference/protocol.md §6.2, §7.1; docs/reference/compat-backends.md
// `pubkey_allowlist`): with BUZZ_PUBKEY_ALLOWLIST, only listed pubkeys may
// authenticate by key alone (an API token bypasses it), and dev-mode uploads
// need a listed signer. On first start with no relay members, the list
// becomes the member table.
//
// The table lives in the pubkey_allowlist column family; `buzz admin` changes
// it offline and the server reads it once at start-up.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/hex.h"
#include "engine/result.h"
#include "engine/rocks_database.h"

namespace buzz::engine {

struct AllowedPubkey {
  Pubkey pubkey{};
  std::optional<Pubkey> added_by;
  uint64_t added_at = 0;
  std::string note;
};

// The list wherever it lives (PostgreSQL's pubkey_allowlist: migrate/pg_relay_members.h).
class PubkeyAllowlistTable {
 public:
  virtual ~PubkeyAllowlistTable() = default;
  // Every entry, oldest first.
  virtual Result<std::vector<AllowedPubkey>> list() const = 0;
};

class PubkeyAllowlist final : public PubkeyAllowlistTable {
 public:
  explicit PubkeyAllowlist(RocksDatabase& db) : db_(db) {}

  Result<std::vector<AllowedPubkey>> list() const override;
  Status put(const AllowedPubkey& entry);
  // False if the pubkey was not listed.
  Result<bool> remove(const Pubkey& pk);

 private:
  RocksDatabase& db_;
};

}  // namespace buzz::engine
