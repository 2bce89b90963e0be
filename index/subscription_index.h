// SubscriptionIndex: which live subscriptions must see a new event.
//
// Each network loop owns one index over its own connections' subscriptions
// (loop thread only, never blocks, no locks). A subscription sits in exactly
// one tier (docs/reference/protocol.md §9.5):
//   channel-scoped:  1 (channel, kind)       2 channel (some filter has no kinds)
//   global:          3a (kind, #p value)     3b kind      3c wildcard
// A global subscription naming several channels is also filed in tiers 1–2 of
// each channel it lists in `channels` (which its caller may read).
// Invariant (security): an event with a channel is offered only to tiers 1–2 of
// that channel, a global event only to tier 3. Never look elsewhere. The one
// exception is the relay's group state (is_group_state): offered to tiers 3a–3b
// as well, each delivery then passing the channel's read rule (Relay::fanout).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/filter.h"
#include "engine/kind_numbers.h"
#include "index/replay_horizon.h"

namespace buzz::index {

// The relay's NIP-29 group state (39000–39002, docs/reference/kinds.md §4.1): stored in
// its channel, yet also offered to the global subscriptions naming its kind, so one
// subscription learns of every channel opened, renamed or archived that its caller may
// read (it is emitted again after each change). Who may read the channel is checked on
// each delivery, as for every channel event of a private channel.
constexpr bool is_group_state(uint16_t kind) { return kind >= kind::kGroupMetadata && kind <= kind::kGroupMembers; }

struct Subscription {
  uint64_t owner = 0;             // the owning connection (opaque to the index)
  std::string id;                 // the client's subscription id
  std::string event_prefix;       // `["EVENT",<id as JSON>,` — the only per-recipient bytes of a delivery
  std::vector<engine::Filter> filters;
  std::string channel;            // channel scope; empty = global
  // A global subscription whose every filter names channels in #h: the ones
  // of those its caller may read, whose live events it also gets (filed in
  // tiers 1–2 of each besides its global tier).
  std::vector<std::string> channels;
  std::vector<std::string> keys;  // the buckets it was filed under (for removal)
  uint64_t seen_epoch = 0;        // dedupe within one match() call
  ReplayHorizon horizon;          // what its history replay already sent

  bool matches(const engine::EventFields& e) const;
};

class SubscriptionIndex {
 public:
  void add(Subscription* sub);
  void remove(Subscription* sub);

  // Calls visit(sub) once for every subscription whose filters match e.
  template <class Visit>
  void match(const engine::EventFields& e, Visit&& visit);

  size_t size() const { return count_; }

 private:
  using Bucket = std::vector<Subscription*>;
  Bucket* find(const std::string& key);
  template <class Visit>
  void offer(Bucket* b, const engine::EventFields& e, Visit& visit);

  std::unordered_map<std::string, Bucket> buckets_;
  uint64_t epoch_ = 0;
  size_t count_ = 0;
  std::string key_;  // scratch key for match()
};

// Bucket keys: a tier letter, then the tier's fields. Each builder overwrites
// `out` and returns it, so the match path reuses one buffer and never allocates.
const std::string& channel_kind_key(std::string& out, std::string_view channel, uint16_t kind);
const std::string& channel_key(std::string& out, std::string_view channel);
const std::string& kind_p_key(std::string& out, uint16_t kind, std::string_view p);
const std::string& kind_key(std::string& out, uint16_t kind);
inline const std::string kWildcardKey = "w";

template <class Visit>
void SubscriptionIndex::offer(Bucket* b, const engine::EventFields& e, Visit& visit) {
  if (!b) return;
  for (Subscription* s : *b) {
    if (s->seen_epoch == epoch_) continue;
    s->seen_epoch = epoch_;
    if (s->matches(e)) visit(*s);
  }
}

template <class Visit>
void SubscriptionIndex::match(const engine::EventFields& e, Visit&& visit) {
  ++epoch_;
  if (!e.channel.empty()) {
    offer(find(channel_kind_key(key_, e.channel, e.kind)), e, visit);
    offer(find(channel_key(key_, e.channel)), e, visit);
    if (!is_group_state(e.kind)) return;
  }
  for (const engine::TagRef& t : e.tags) {
    if (t.name == 'p') offer(find(kind_p_key(key_, e.kind, t.value)), e, visit);
  }
  offer(find(kind_key(key_, e.kind)), e, visit);
  if (e.channel.empty()) offer(find(kWildcardKey), e, visit);  // a wildcard never gets a channel's group state
}

}  // namespace buzz::index
