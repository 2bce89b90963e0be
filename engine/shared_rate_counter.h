// SharedRateCounter: rate limits that every relay node serving one team
// shares, so a limit holds across nodes (docs/reference/compat-backends.md §3.3).
// A limit is a steady rate with a burst (Rate), decided by GCRA (the generic
// cell rate algorithm): one timestamp per key, the moment its bucket would be
// empty again, so a burst is allowed at once and then uses at the rate.
// The embedded build counts in memory (server/pipeline/rate_limits.h) and has none;
// migrate/redis_rate_counter.h keeps the counts in Redis.
//
// Threads: any thread; acquire() never blocks on the network.
#pragma once

#include <algorithm>
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

// `per_window` uses per `window_secs` on average, of which `burst` (at least 1)
// may come at once. per_window 0 = no limit.
struct Rate {
  uint32_t per_window = 0;
  uint64_t window_secs = 60;
  uint32_t burst = 1;

  bool unlimited() const { return per_window == 0; }
  uint64_t interval_ms() const { return std::max<uint64_t>(1, window_secs * 1000 / per_window); }
  uint64_t tolerance_ms() const { return uint64_t(std::max<uint32_t>(burst, 1) - 1) * interval_ms(); }
};

// One GCRA step for a key whose bucket is empty again at `tat_ms` (0 = never
// used): allowed, with the new tat, or refused, with how long until a use is.
struct GcraStep {
  bool allowed = true;
  uint64_t tat_ms = 0;
  uint64_t wait_ms = 0;
};
inline GcraStep gcra(uint64_t tat_ms, uint64_t now_ms, const Rate& r) {
  // No use leaves tat further ahead than this: past it, the clock went back.
  if (tat_ms > now_ms + r.tolerance_ms() + r.interval_ms()) tat_ms = now_ms;
  const uint64_t from = std::max(tat_ms, now_ms);
  if (from - now_ms > r.tolerance_ms()) return {false, tat_ms, from - now_ms - r.tolerance_ms()};
  return {true, from + r.interval_ms(), 0};
}

// Whole seconds to wait, at least 1 (a Retry-After).
inline uint64_t wait_secs(uint64_t wait_ms) { return std::max<uint64_t>(1, (wait_ms + 999) / 1000); }

struct RateDecision {
  bool allowed = true;
  uint64_t retry_after = 0;  // when refused: seconds until a use is allowed
  std::shared_ptr<RateTicket> ticket;  // when allowed: the shared count's answer, still on its way
};

class SharedRateCounter {
 public:
  virtual ~SharedRateCounter() = default;
  // One use of `limit` ("msg", "api", …) by pk at `now_ms` (Unix ms);
  // refused (and not counted) past the rate.
  virtual RateDecision acquire(const Pubkey& pk, std::string_view limit, const Rate& rate, uint64_t now_ms) = 0;
};

}  // namespace buzz::engine
