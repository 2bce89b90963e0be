// RelayPolicy: what the relay's owner and admins change at run time through
// NIP-86 (docs/reference/nip86.md) beyond membership: banned pubkeys, banned
// events, blocked IP addresses, and the relay's name, description and icon,
// which override the configured NIP-11 texts.
//
// The store's relay_policy table holds it (RocksDB or PostgreSQL alike), so
// it survives a restart; the server reads it into memory at start, and every
// node applies each change it makes or hears of (Relay::on_policy_change).
// Readers on the hot paths (AUTH, EVENT, each request's address) pay one
// atomic load while nothing of their kind is banned.
//
// Any thread: reads take a shared lock, apply() writes the store, then memory.
#pragma once

#include <atomic>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/event_store.h"
#include "engine/hex.h"

namespace buzz::server {

class RelayPolicy {
 public:
  // Each change is named by the NIP-86 method that makes it.
  enum class Op : uint8_t {
    kBanPubkey, kUnbanPubkey, kBanEvent, kAllowEvent, kBlockIp, kUnblockIp,
    kChangeName, kChangeDescription, kChangeIcon,
  };
  struct Change {
    Op op;
    std::string subject;  // a pubkey or event id (64 lowercase hex), an IP address, or the new text
    std::string reason;
  };
  // One row of a list: the pubkey, id or address, and why.
  struct Entry {
    std::string subject;
    std::string reason;
  };
  enum class List : uint8_t { kPubkeys, kEvents, kAddresses };
  enum class Text : uint8_t { kName, kDescription, kIcon };

  explicit RelayPolicy(engine::EventStore& store) : store_(store) {}

  // Reads the table (start-up, and the offline `buzz admin`).
  engine::Status load();

  static std::string_view method_name(Op op);
  static std::optional<Op> parse_method(std::string_view method);
  // A change checked and in canonical form (lowercase hex, the address as
  // inet_ntop writes it), or the reason it is refused, for the caller.
  static engine::Result<Change> make(Op op, std::string_view subject, std::string_view reason);
  // The change as the JSON other nodes are told (and back).
  static std::string encode(const Change& c);
  static engine::Result<Change> decode(std::string_view json);

  // Writes the change through to the store, then to memory. Idempotent: a
  // node told of a change another made applies it again.
  engine::Status apply(const Change& c);

  bool pubkey_banned(const engine::Pubkey& pk) const;
  bool event_banned(const engine::Id& id) const;
  bool events_banned() const { return counts_[size_t(List::kEvents)].load(std::memory_order_relaxed) != 0; }
  // `peer`: an address, or "address:port" as net::HttpRequest::peer has it.
  bool address_blocked(std::string_view peer) const;
  std::vector<Entry> list(List which) const;  // in key order
  std::optional<std::string> text(Text which) const;

 private:
  using Rows = std::unordered_map<std::string, std::string>;  // subject -> reason (or text)
  static std::string key_of(const Change& c);
  // Under the lock: a row of a list, and its binary key for the pubkey and event lists.
  void put_row(List which, const std::string& subject, std::string reason);
  void erase_row(List which, const std::string& subject);
  bool has(List which, const engine::Id& key) const;

  engine::EventStore& store_;
  mutable std::shared_mutex mu_;
  Rows lists_[3];
  std::unordered_set<engine::Id, engine::KeyBytesHash> keys_[2];  // kPubkeys, kEvents: what the hot paths ask
  std::atomic<size_t> counts_[3] = {0, 0, 0};
  std::optional<std::string> texts_[3];
};

}  // namespace buzz::server
