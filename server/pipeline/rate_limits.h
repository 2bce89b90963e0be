// Rate limits by tier (docs/reference/protocol.md §14, docs/reference/compat-backends.md §5): messages per
// author per minute, HTTP API calls per pubkey per minute, and WebSocket
// frames per connection per second for humans.
//
// The windows are fixed (a burst of up to twice the limit can pass at a
// window's edge, as the spec allows) and counted in memory: RateCounters is
// one table shared by the loops, sharded so that two loops rarely meet on a
// lock. The per-connection frame count lives in the Session instead, touched
// only by its loop.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/hex.h"
#include "engine/result.h"

namespace buzz::server {

enum class Tier : uint8_t { kHuman, kAgentStandard, kAgentElevated, kAgentPlatform };
inline constexpr size_t kTierCount = 4;
std::string_view tier_name(Tier t);  // "human", "agent-standard", …
std::optional<Tier> parse_tier(std::string_view s);

// What is counted; the names are the audit entry's `limit` (docs/reference/audit.md §5.2).
// Token mints have their own rolling-hour RateLimiter (rate_limiter.h).
enum class RateLimit : uint8_t { kMessages, kApiCalls, kWsEvents, kMint };
inline constexpr size_t kRateLimitCount = 4;
std::string_view rate_limit_name(RateLimit l);  // "msg", "api", "ws", "mint"

struct RateLimitConfig {
  bool enabled = true;
  // By tier (Tier's order); 0 = no limit.
  std::array<uint32_t, kTierCount> messages_per_min = {60, 120, 300, 600};
  std::array<uint32_t, kTierCount> api_calls_per_min = {300, 600, 0, 0};
  uint32_t human_ws_events_per_sec = 10;  // agents, the owner and admins have no frame limit
  uint32_t human_ws_events_burst = 50;    // the frame bucket's size (at least the per-second rate)
  // Tiers the operator assigned; everyone else is human or agent-standard.
  std::unordered_map<engine::Pubkey, Tier, engine::KeyBytesHash> assigned;
};

// "HEX=tier,HEX=tier" (the rate-limit-tiers key) into `out`; the error names the bad entry.
engine::Status parse_tier_assignments(std::string_view text,
                                      std::unordered_map<engine::Pubkey, Tier, engine::KeyBytesHash>* out);

// Whether an event of this kind counts as a message: kinds 1, 7, 9,
// 40002–40008 and 45001–45003 (docs/reference/protocol.md §14).
bool counts_as_message(uint32_t kind);

// Fixed-window counters keyed by (pubkey, limit). Any thread.
class RateCounters {
 public:
  // At most max_keys keys are held; when a shard fills, keys whose window and
  // audit interval have passed go first, then arbitrary ones.
  explicit RateCounters(size_t max_keys = 100000);

  struct Outcome {
    bool allowed = true;
    uint64_t retry_after = 0;  // when refused: seconds until the window ends
  };
  // Counts one use in the window of `window_secs` that holds `now`; refused
  // (and not counted) once `limit` uses are in it.
  Outcome acquire(const engine::Pubkey& pk, RateLimit limit, uint32_t max, uint64_t window_secs, uint64_t now);

  // True at most once per 60 s per (pubkey, limit): whether a refusal gets an
  // audit entry (docs/reference/audit.md §5.2 debounces them).
  bool audit_due(const engine::Pubkey& pk, RateLimit limit, uint64_t now);

 private:
  static constexpr size_t kShards = 16;
  static constexpr uint64_t kAuditIntervalSecs = 60;
  struct Key {
    engine::Pubkey pubkey;
    RateLimit limit;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return engine::KeyBytesHash{}(k.pubkey) ^ size_t(k.limit); }
  };
  struct Window {
    uint64_t start = 0;   // the window's first second
    uint64_t end = 0;     // its first second after
    uint32_t count = 0;
    uint64_t audited_at = 0;  // 0 = never
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<Key, Window, KeyHash> windows;
  };
  Window& slot(Shard& shard, const Key& key, uint64_t now);
  Shard& shard_of(const Key& key) { return shards_[KeyHash{}(key) >> 8 & (kShards - 1)]; }

  size_t max_per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace buzz::server
