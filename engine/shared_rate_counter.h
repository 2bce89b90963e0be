// SharedRateCounter: fixed-window use counters that every relay node serving
// one team shares, so a rate limit holds across nodes (compat-backends.md §3.3).
// The embedded build counts in memory (server/relay/rate_limits.h) and has none;
// migrate/redis_rate_counter.h keeps the counts in Redis.
//
// Threads: any thread; acquire() never blocks on the network.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/hex.h"

namespace buzz::engine {

struct RateDecision {
  bool allowed = true;
  uint64_t retry_after = 0;  // when refused: seconds until the window ends
};

class SharedRateCounter {
 public:
  virtual ~SharedRateCounter() = default;
  // Counts one use of `limit` ("msg", "api", …) by pk in the current window of
  // `window_secs`; refused (and not counted) once `max` uses are in it.
  virtual RateDecision acquire(const Pubkey& pk, std::string_view limit, uint32_t max, uint64_t window_secs,
                               uint64_t now) = 0;
};

}  // namespace buzz::engine
