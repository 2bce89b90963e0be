// Relay membership at run time (NIP-43, docs/reference/protocol.md §7).
//
// Readers (AUTH on every loop) consult an in-memory copy of the relay_members
// table under a shared lock; only the store-writer thread changes it, through
// apply(), which also builds the relay-signed 8000 / 8001 / 13534 events to store.
#pragma once

#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/event.h"
#include "engine/relay_members.h"
#include "engine/signature.h"

namespace buzz::server {

class RelayMembership {
 public:
  RelayMembership(engine::RelayMemberTable& table, const engine::Keypair& relay_key, bool enforced)
      : table_(table), relay_key_(relay_key), enforced_(enforced) {}

  engine::Status load();
  // Reads the table again (another node changed it in a shared store); the
  // pubkeys that were members and are no longer. Any thread.
  engine::Result<std::vector<engine::Pubkey>> reload();
  bool enforced() const { return enforced_; }
  std::optional<engine::RelayRole> role(const engine::Pubkey& pk) const;
  // The table's rows (REST reads): every member oldest first, or one. Any thread.
  engine::Result<std::vector<engine::RelayMember>> members() const { return table_.list(); }
  std::optional<engine::RelayMember> member(const engine::Pubkey& pk) const { return table_.get(pk); }

  struct Outcome {
    bool ok = false;
    std::string reason;                      // the OK reason (with prefix)
    std::vector<engine::Event> emitted;      // relay-signed events to store and fan out
    std::optional<engine::Pubkey> removed;   // a pubkey that lost membership
  };
  // Runs a 9030 / 9031 / 9032 / 28936 event. Store-writer thread only.
  Outcome apply(const engine::Event& e, uint64_t now);

  // A fresh signed 13534 membership list. Store-writer thread only.
  engine::Event membership_list(uint64_t now);

 private:
  Outcome apply_admin(const engine::Event& e, uint64_t now);
  Outcome apply_leave(const engine::Event& e, uint64_t now);
  engine::Event signed_event(uint16_t kind, uint64_t created_at, std::vector<engine::Tag> tags);
  void cache(const engine::Pubkey& pk, std::optional<engine::RelayRole> role);

  engine::RelayMemberTable& table_;
  engine::Keypair relay_key_;
  bool enforced_;
  uint64_t last_list_at_ = 0;
  mutable std::shared_mutex mu_;
  std::unordered_map<engine::Pubkey, engine::RelayRole, engine::KeyBytesHash> roles_;
};

}  // namespace buzz::server
