// Rate limits by tier (docs/reference/protocol.md §14, docs/reference/compat-backends.md §5): messages per
// author and HTTP API calls per pubkey, each a steady rate with a burst, and
// for humans the WebSocket frames per connection (writes and reads apart).
//
// Per-pubkey limits are decided by GCRA (engine/shared_rate_counter.h) and
// kept in memory: RateCounters is one table shared by the loops, sharded so
// that two loops rarely meet on a lock. The per-connection frame buckets live
// in the Session instead, touched only by its loop.
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
#include "engine/shared_rate_counter.h"

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
  // By tier (Tier's order); 0 = no limit. Messages come in a burst of twice the
  // per-minute limit (a phone flushing its outbox), then at the rate; API calls
  // in a burst of a minute's worth.
  std::array<uint32_t, kTierCount> messages_per_min = {60, 120, 300, 600};
  std::array<uint32_t, kTierCount> api_calls_per_min = {300, 600, 0, 0};
  // Humans' frames per connection; agents, the owner and admins have none.
  // EVENT frames: a bucket of human_ws_events_burst refilled at the rate.
  uint32_t human_ws_events_per_sec = 10;
  uint32_t human_ws_events_burst = 100;
  // REQ, COUNT and NEG-OPEN frames, priced by what they cost (Throttle::admit_read):
  // the burst lets a client open every subscription NIP-11 promises at once.
  uint32_t human_reads_per_sec = 20;
  uint32_t human_reads_burst = 1100;
  // Tiers the operator assigned; everyone else is human or agent-standard.
  std::unordered_map<engine::Pubkey, Tier, engine::KeyBytesHash> assigned;

  engine::Rate messages(Tier t) const { return {messages_per_min[size_t(t)], 60, 2 * messages_per_min[size_t(t)]}; }
  engine::Rate api_calls(Tier t) const { return {api_calls_per_min[size_t(t)], 60, api_calls_per_min[size_t(t)]}; }
};

// "HEX=tier,HEX=tier" (the rate-limit-tiers key) into `out`; the error names the bad entry.
engine::Status parse_tier_assignments(std::string_view text,
                                      std::unordered_map<engine::Pubkey, Tier, engine::KeyBytesHash>* out);

// Whether an event of this kind counts as a message: kinds 1, 7, 9,
// 40002–40008 and 45001–45003 (docs/reference/protocol.md §14).
bool counts_as_message(uint32_t kind);

// GCRA state keyed by (pubkey, limit). Any thread.
class RateCounters {
 public:
  // At most max_keys keys are held; when a shard fills, keys whose bucket is
  // full again and whose audit interval has passed go first, then arbitrary ones.
  explicit RateCounters(size_t max_keys = 100000);

  struct Outcome {
    bool allowed = true;
    uint64_t retry_after = 0;  // when refused: seconds until a use is allowed
  };
  // One use at now_ms (Unix ms); refused (and not counted) past the rate.
  Outcome acquire(const engine::Pubkey& pk, RateLimit limit, const engine::Rate& rate, uint64_t now_ms);

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
  struct Entry {
    uint64_t tat_ms = 0;      // when the key's bucket is full again (GCRA)
    uint64_t audited_at = 0;  // 0 = never
  };
  struct Shard {
    std::mutex mu;
    std::unordered_map<Key, Entry, KeyHash> entries;
  };
  Entry& slot(Shard& shard, const Key& key, uint64_t now_ms);
  Shard& shard_of(const Key& key) { return shards_[KeyHash{}(key) >> 8 & (kShards - 1)]; }

  size_t max_per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace buzz::server
