// EventStore: where accepted events live (the embedded RocksDB store by default,
// PostgreSQL later). The server talks only to this interface.
//
// Threads: write() is called by the single store-writer thread only, so its
// read-modify-write steps (replaceable events, deletions) need no locks.
// query(), count(), get() and contains() may be called from any thread at any time.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/filter.h"
#include "engine/result.h"

namespace buzz::engine {

// The most events one filter returns from history (docs/reference/protocol.md §2.5, NIP-11 max_limit).
inline constexpr size_t kMaxQueryLimit = 500;

struct WriteRequest {
  const Event* event;
  std::string_view channel;  // canonical channel id, empty for global events
  // Events this one soft-deletes on authority checked by the caller (a 9005
  // moderation delete, the group state of a deleted channel).
  std::span<const Id> deletes = {};
};

enum class WriteOutcome : uint8_t {
  kStored,
  kDuplicate,  // this id is already stored (or was deleted): OK true "duplicate:"
  kStale,      // a newer replaceable/addressable version is stored: OK true "duplicate:"
  kInvalid,    // refused by a storage rule (deletion target, d tag): OK false, reason set
};

struct WriteResult {
  WriteOutcome outcome = WriteOutcome::kStored;
  std::string reason;            // for kInvalid: the wire reason
  std::vector<Id> removed;       // events this write superseded or deleted
};

// Team state kept beside the events and changed in the same atomic write
// (docs/reference/channels.md: "every change is one atomic write").
enum class StateTable : uint8_t {
  kChannels, kChannelMembers, kThreads, kAuditPending, kApiTokens, kUsers, kWorkflows,
  kRelayPolicy,  // what NIP-86 changed: bans, blocked addresses, NIP-11 texts (server/access/relay_policy.h)
};

struct StateWrite {
  StateTable table;
  std::string key;
  std::string value;  // empty = delete the key
};

// One stored event, live or deleted, as the pipeline's target checks need it.
struct StoredEvent {
  std::string raw;
  std::string channel;
  Pubkey pubkey{};
  uint16_t kind = 0;
  uint64_t created_at = 0;
  bool deleted = false;
};

// An event past its NIP-40 expiration, as the reaper erases and audits it.
struct ExpiredEvent {
  Id id{};
  Pubkey pubkey{};
  uint16_t kind = 0;
  uint64_t created_at = 0;
  uint64_t expires_at = 0;
  std::string channel;
};

struct QueryOptions {
  size_t limit = kMaxQueryLimit;
  // Extra per-event gate applied before an event counts toward the limit
  // (channel access, p-gate). Empty = accept all.
  std::function<bool(const EventFields&)> accept;
};

// Called with the results of a write before it commits; the state writes it
// adds commit in the same batch (records that depend on each outcome: audit).
using WriteFinisher = std::function<void(std::span<const WriteResult> results, std::vector<StateWrite>& state)>;

// update_state's change: the new value of a key, or nullopt to keep it.
using StateChange = std::function<std::optional<std::string>(const std::optional<std::string>& current)>;

// Receives matching events newest first: the stored JSON and its decoded fields.
using EventSink = std::function<void(std::string_view raw, const EventFields& fields)>;

// What other nodes changed in the team state of a store several nodes share:
// the channels whose records (kChannels, kChannelMembers) batches committed
// after a version changed, and the version now.
struct TeamChanges {
  uint64_t version = 0;
  std::vector<std::string> channels;
};

class EventStore {
 public:
  virtual ~EventStore() = default;

  // Applies the requests in order, and the state writes, as one atomic, durable
  // batch; one result per request. Store-writer thread only.
  virtual Result<std::vector<WriteResult>> write(std::span<const WriteRequest> requests,
                                                 std::span<const StateWrite> state = {},
                                                 const WriteFinisher& finish = {}) = 0;

  // True if an event with this id was ever stored (including deleted ones).
  virtual bool contains(const Id& id, uint16_t kind) = 0;

  // Streams matching events, created_at descending then id ascending.
  virtual Status query(const Filter& filter, const QueryOptions& options, const EventSink& sink) = 0;

  // Every live event of one kind, newest first, with no limit or scan budget:
  // for start-up loaders that rebuild an in-memory view from the events.
  virtual Status scan_kind(uint16_t kind, const EventSink& sink) = 0;

  // Every matching event `options.accept` lets through, with no scan budget:
  // the set a NIP-77 session reconciles. Newest first when the filter has a
  // limit (the newest that many); without one, in the store's own order (a
  // set's order does not matter, and reading in storage order is faster).
  // More than `max_events` is an error ("blocked: …").
  virtual Status scan_all(const Filter& filter, const QueryOptions& options, size_t max_events,
                          const std::function<void(const EventFields&)>& sink) = 0;

  // Number of distinct stored events matching any of the filters.
  virtual Result<uint64_t> count(std::span<const Filter> filters, const QueryOptions& options) = 0;

  // The stored JSON of one live (not deleted) event.
  virtual std::optional<std::string> get(const Id& id) = 0;

  // One stored event, deleted ones included.
  virtual std::optional<StoredEvent> lookup(const Id& id) = 0;

  // NIP-40 (docs/storage.md, "Expiration"). Reads never return an expired
  // event; these two erase them. `expired`: up to `max` events whose
  // expiration is at or before `now`, the earliest first. Any thread.
  virtual Result<std::vector<ExpiredEvent>> expired(uint64_t now, size_t max) = 0;
  // Erases the events, deleted or not (record, index entries, id: nothing is
  // left to answer `duplicate:`), with the state writes, as one atomic,
  // durable batch. Store-writer thread only.
  virtual Status erase_expired(std::span<const ExpiredEvent> events, std::span<const StateWrite> state) = 0;

  // Team state: one value, or every (key, value) of a table in key order.
  virtual std::optional<std::string> get_state(StateTable table, std::string_view key) = 0;
  virtual Status scan_state(StateTable table,
                            const std::function<void(std::string_view key, std::string_view value)>& visit) = 0;
  // Every (key, value) of a table whose key starts with prefix, in key order.
  virtual Status scan_state_prefix(StateTable table, std::string_view prefix,
                                   const std::function<void(std::string_view key, std::string_view value)>& visit) = 0;
  // Writes one value outside any event write (API tokens, which no event
  // changes). Any thread.
  virtual Status put_state(StateTable table, std::string_view key, std::string_view value) = 0;
  // Writes (or, for an empty value, deletes) several keys as one atomic batch
  // outside any event write (a workflow run and its approval). Any thread.
  virtual Status put_states(std::span<const StateWrite> writes) = 0;
  // Reads one value and writes what `change` makes of it, outside any event
  // write, atomically against every other update_state of the same existing
  // key, on this node or another sharing the store: an API token revoked on
  // one node must not be written back live by another node's touch of it.
  // `change` gets the value (nullopt when absent) and returns the new one, or
  // nullopt to leave it as it is. Any thread.
  virtual Status update_state(StateTable table, std::string_view key, const StateChange& change) = 0;
  // Deletes keys in [from, to) outside any event write (the audit writer's
  // acknowledgements). Not necessarily durable on return: a caller must accept
  // seeing the keys again after a power cut. Any thread.
  virtual Status erase_state(StateTable table, std::string_view from, std::string_view to) = 0;

  // A store several nodes write (PostgreSQL): the channels any node changed in
  // batches committed after version `since`. Versions follow commit order with
  // no gaps, so a reader that has seen version v has seen every change up to v.
  // The embedded store has one writer, this process: nothing ever changes
  // behind it (version 0, no channels). Store-writer thread, and start-up.
  virtual Result<TeamChanges> team_changes(uint64_t /*since*/) { return TeamChanges{}; }
  // A store several nodes write: the cluster's team lock, held by this
  // thread until unlock_team. A node plans a batch that may change channels
  // or members under it, after catching up, so no two nodes decide
  // conflicting changes each on its own view. Embedded: nothing to share.
  // Store-writer thread.
  virtual Status lock_team() { return {}; }
  virtual void unlock_team() {}
  // Runs `section` while no other node sharing the store runs a section of
  // the same table: a read-then-write such as "count the owner's tokens, then
  // add one" holds across nodes. `section` uses this store from this thread.
  // Embedded: one process, whose callers serialize their own sections.
  virtual Status with_table_lock(StateTable /*table*/, const std::function<Status()>& section) { return section(); }
};

}  // namespace buzz::engine
