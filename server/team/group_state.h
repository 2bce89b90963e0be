// A channel's group state as the relay publishes it (docs/reference/kinds.md §4): 39000
// metadata, 39001 its owners and admins, 39002 every member. TeamModel emits
// the three on each change to a channel; reconcile_channels writes them for
// channels that have none, which only a data directory imported from elsewhere
// can hold (`buzz admin reconcile-channels`, BUZZ_RECONCILE_CHANNELS at start-up,
// docs/reference/agents-and-cli.md Part C, docs/reference/compat-backends.md §6.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/channel.h"
#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/result.h"
#include "engine/signature.h"
#include "engine/team_state.h"

namespace buzz::server {

struct GroupStateTags {
  std::vector<engine::Tag> metadata;  // 39000
  std::vector<engine::Tag> admins;    // 39001
  std::vector<engine::Tag> members;   // 39002 (the first 1,000)
};

// `members`: the channel's active members in join order.
GroupStateTags group_state_tags(const engine::Channel& ch, const std::vector<const engine::ChannelMember*>& members);

// The relay-signed kind 5 that tells a reader the channel's group state is gone
// for her (the channel deleted, or no longer hers to read; docs/reference/kinds.md §4.13):
// its 39000–39002 by address (`a`) and kind (`k`), `reason` as its content.
// Never stored: the relay sends it on the subscriptions of those who lost the channel.
engine::Event group_state_gone(const engine::Keypair& relay_key, const std::string& channel, std::string reason,
                               uint64_t now);

struct ReconcileReport {
  size_t reconciled = 0;  // channels given their group state now
  size_t already = 0;     // channels that had a 39000 already
  size_t total() const { return reconciled + already; }
};

// The live channels with no stored 39000 whose `d` is their id (by any author).
engine::Result<std::vector<std::string>> channels_without_group_state(engine::EventStore& store,
                                                                      const engine::TeamState& team);

// For each live channel with no stored 39000 whose `d` is its id (by any
// author), writes a 39000, 39001 and 39002 signed by relay_key, created at
// `now`. Idempotent. Offline, or on the thread that owns the store's writes,
// with `team` loaded from the same store.
engine::Result<ReconcileReport> reconcile_channels(engine::EventStore& store, const engine::TeamState& team,
                                                   const engine::Keypair& relay_key, uint64_t now);

}  // namespace buzz::server
