// PresenceStore: who is online / away (kind 20001) and who is typing where
// (kind 20002), never written to the event store (docs/reference/protocol.md §12). The
// embedded build keeps it in memory (server/team/presence_store.h); several
// nodes keep the statuses in Redis as buzz:presence:{hex} with a 90 s TTL
// (migrate/redis_presence_store.h), so a status set on one node reads on all.
//
// Threads: every method may be called from any loop thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hex.h"

namespace buzz::engine {

inline constexpr uint64_t kPresenceTtlSecs = 90;  // 3 × the clients' 30 s heartbeat
inline constexpr uint64_t kTypingWindowSecs = 5;
inline constexpr size_t kMaxPresenceStatusBytes = 128;
inline constexpr uint64_t kGuestChannelsSecs = 2 * kPresenceTtlSecs;
inline constexpr size_t kMaxGuestChannels = 100;  // h tags on one guest's presence

class PresenceStore {
 public:
  virtual ~PresenceStore() = default;
  // "offline" clears the status; anything else is kept for kPresenceTtlSecs.
  virtual void set_status(const Pubkey& pk, std::string_view status, uint64_t now) = 0;
  // Forgets pk's status; true if it held one that had not expired.
  virtual bool clear(const Pubkey& pk, uint64_t now) = 0;
  virtual std::optional<std::string> status(const Pubkey& pk, uint64_t now) const = 0;
  // Forgets every status set here that has expired by now, and names whose they were.
  virtual std::vector<Pubkey> expire(uint64_t now) = 0;
  // A `buzz proxy` guest's channels (docs/reference/proxy.md §11): their
  // members see the guest's shadow key's status as a co-member's. Kept for
  // kGuestChannelsSecs after the last setting, past the status's own TTL, so
  // the offline announced when the status expires still reaches them.
  virtual void set_guest_channels(const Pubkey& pk, std::vector<std::string> channels, uint64_t now) = 0;
  virtual std::vector<std::string> guest_channels(const Pubkey& pk, uint64_t now) const = 0;
  virtual void set_typing(std::string_view channel, const Pubkey& pk, uint64_t now) = 0;
  // Pubkeys that typed in the channel within the last kTypingWindowSecs.
  virtual std::vector<Pubkey> typing(std::string_view channel, uint64_t now) const = 0;
};

}  // namespace buzz::engine
