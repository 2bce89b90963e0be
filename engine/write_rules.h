// The rules every EventStore applies to a write, written once (docs/storage.md,
// "Replace and delete"); RocksEventStore and migrate/'s PgEventStore each give
// them a WriteView over their own batch.
//
// - An id stored before, live or deleted, is a duplicate: a deleted event is
//   never accepted again.
// - Replaceable and addressable events (NIP-01): one live version per slot;
//   the newer wins, a same-second tie goes to the lowest id
//   (docs/reference/protocol.md §10).
// - Deletion (NIP-09, kind 5): one target (deletion_target.h). An e tag deletes
//   the author's own event, or one the caller cleared (WriteRequest::deletes);
//   an a tag deletes the live version of the author's own addressable slot.
//   A deleted event stays stored, marked (docs/reference/protocol.md §11).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/event_store.h"

namespace buzz::engine {

// The longest d tag an addressable event may carry.
inline constexpr size_t kMaxDTagBytes = 1024;

// Where the versions of a replaceable or addressable event compete: rule A
// keys on the channel (replaceable kinds, and the relay-signed group state
// 39000–39002), rule B on the d tag.
struct ReplaceSlot {
  uint16_t kind = 0;
  Pubkey pubkey{};
  bool by_channel = false;  // rule A
  std::string_view value;   // the channel (rule A) or the d tag (rule B)
};

ReplaceSlot replace_slot(uint16_t kind, const Pubkey& pubkey, std::string_view channel, std::string_view d);

// What the rules read and change of one write batch, the batch's own earlier
// writes included. Store-writer thread only, as EventStore::write.
class WriteView {
 public:
  struct Stored {
    Pubkey pubkey{};
    bool live = false;  // not deleted
  };
  struct Version {
    Id id{};
    uint64_t created_at = 0;
  };

  virtual ~WriteView() = default;
  // True if an event with this id is stored, live or deleted.
  virtual Result<bool> contains(const Id& id) = 0;
  // A stored event's author and state; nullopt when absent.
  virtual Result<std::optional<Stored>> find(const Id& id) = 0;
  // The live version of a slot; nullopt when it has none.
  virtual Result<std::optional<Version>> current(const ReplaceSlot& slot) = 0;
  // Marks a live event deleted.
  virtual void soft_delete(const Id& id) = 0;
  // Stores e, and with a slot, as that slot's live version.
  virtual void add(const Event& e, std::string_view channel, const ReplaceSlot* slot) = 0;
  // A store's own limit on what it can hold (after the duplicate check): the
  // wire reason ("invalid: …"), or empty.
  virtual std::string unstorable(const Event& /*e*/) { return {}; }
};

// Applies one request to the view: stored (with what it superseded or
// deleted), duplicate, stale or invalid. An error is the store's own.
Result<WriteResult> apply_write_rules(WriteView& view, const WriteRequest& request);

}  // namespace buzz::engine
