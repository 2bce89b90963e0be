// TeamState: every channel and channel membership, in memory, loaded from the
// store's state tables at start-up (docs/reference/channels.md §2–§4).
//
// Threads: the store-writer thread is the only writer. It reads without
// locking (nobody else writes) and changes records through put_channel() /
// put_member(), which take the lock exclusively and return the StateWrite that
// persists the change in the same batch as the event that caused it. Every
// other thread reads through the const queries, which take it shared.
// Membership changes therefore apply at once: there is no stale cache window.
#pragma once

#include <functional>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/channel.h"
#include "engine/event_store.h"

namespace buzz::engine {

// What one pubkey may do in one channel, from a single lookup.
struct ChannelAccess {
  bool exists = false;  // false also for deleted channels
  bool archived = false;
  Visibility visibility = Visibility::kOpen;
  std::optional<ChannelRole> role;  // set for active members

  // Open channels are readable and writable by every relay user (docs/reference/channels.md §3.1).
  bool can_read() const { return exists && (visibility == Visibility::kOpen || role.has_value()); }
  // Posting content follows the same rule as reading (docs/reference/channels.md §3.1).
  bool can_post() const { return can_read(); }
};

class TeamState {
 public:
  // Everything, and the store's team version (EventStore::team_changes) from
  // before the read, so a change committed meanwhile is caught up later.
  Status load(EventStore& store);
  // Store-writer thread: re-reads the channels other nodes changed since the
  // last load or catch-up (a store several nodes share); the ids re-read.
  // `before` sees each changed channel's id before its records are replaced.
  Result<std::vector<std::string>> catch_up(EventStore& store, const std::function<void(const std::string&)>& before);

  // --- any thread ---
  ChannelAccess access(std::string_view channel, const Pubkey& pk) const;
  bool can_read(std::string_view channel, const Pubkey& pk) const { return access(channel, pk).can_read(); }
  bool is_private(std::string_view channel) const;
  bool is_member(std::string_view channel, const Pubkey& pk) const;
  // Every live channel this pubkey can read: open ones and those it is a member of.
  std::vector<std::string> readable_channels(const Pubkey& pk) const;
  // Copies for readers on other threads (the REST API): a live channel, and
  // its active members in join order.
  std::optional<Channel> find_channel(std::string_view id) const;
  std::vector<ChannelMember> members_of(std::string_view id) const;
  // Everyone who is an active member of a live channel together with pk (pk included).
  std::unordered_set<Pubkey, KeyBytesHash> co_members(const Pubkey& pk) const;
  // Every (live channel, active member) pair whose member holds `role`.
  std::vector<std::pair<std::string, Pubkey>> role_holders(ChannelRole role) const;

  // --- store-writer thread only ---
  const Channel* channel(std::string_view id) const;  // deleted channels included
  const ChannelMember* member(std::string_view channel, const Pubkey& pk) const;  // removed rows included
  // Active members in join order.
  std::vector<const ChannelMember*> active_members(std::string_view channel) const;
  size_t active_owners(std::string_view channel) const;
  // The live DM for a participant hash, or nullptr.
  const Channel* dm_by_hash(std::string_view participant_hash) const;
  uint64_t next_join_seq() { return ++join_seq_; }
  // Every channel not deleted.
  std::vector<std::string> live_channel_ids() const;
  // Live, unarchived channels whose TTL deadline has passed (docs/reference/channels.md §5).
  std::vector<std::string> expired_channels(uint64_t now) const;

  StateWrite put_channel(Channel c);
  StateWrite put_member(std::string_view channel, ChannelMember m);

 private:
  struct Entry {
    Channel channel;
    std::unordered_map<Pubkey, ChannelMember, KeyBytesHash> members;
  };
  const Entry* find(std::string_view id) const;
  // One channel and its members as the store has them now (gone from memory if not there).
  Status reload_channel(EventStore& store, const std::string& id);

  // Looks channels up by string_view: the live path asks once per delivery and must not allocate.
  struct IdHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, Entry, IdHash, std::equal_to<>> channels_;
  std::unordered_map<std::string, std::string> dm_by_hash_;  // participant hash -> channel id
  uint64_t join_seq_ = 0;
  uint64_t version_ = 0;  // the store's team version this state includes (writer thread)
};

}  // namespace buzz::engine
