// SharedRateCounter: fixed-window use counters that every relay node serving
// one team shares, so a rate limit holds across nodes (docs/reference/compat-backends.md §3.3).
// The embedded build counts in memory (server/pipeline/rate_limits.h) and has none;
// migrate/redis_rate_counter.h keeps the counts in Redis.
//
// Threads: any thread; acquire() never blocks on the network.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "engine/hex.h"

namespace buzz::engine {

// A use allowed from what the node knew, whose count across every node is
// still on its way: whoever acknowledges the use asks it first, so no node
// acknowledges a use the shared count put past the limit. Any thread.
class RateTicket {
 public:
  // Waits until the shared count is known or `deadline`; false when it put this
  // use past the limit. Unanswered in time, or failed by the store: allowed
  // (the node's own count then holds, as for a counter that is away).
  bool allowed_by(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return settled_; });
    return !settled_ || allowed_;
  }
  void settle(bool allowed) {
    {
      std::lock_guard lock(mu_);
      settled_ = true;
      allowed_ = allowed;
    }
    cv_.notify_all();
  }
  // Set before the ticket is handed on: the refusal's reason, and the check a
  // refusal still passes (an exempt author is not refused), which counts it.
  std::string refusal;
  std::function<bool()> refusal_stands = [] { return true; };

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool settled_ = false;
  bool allowed_ = true;
};

struct RateDecision {
  bool allowed = true;
  uint64_t retry_after = 0;  // when refused: seconds until the window ends
  std::shared_ptr<RateTicket> ticket;  // when allowed: the shared count's answer, still on its way
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
