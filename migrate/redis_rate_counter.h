// RedisRateCounter: rate-limit windows shared by every relay node through
// Redis (docs/reference/compat-backends.md §3.3). Each use runs upstream's script on
// buzz:ratelimit:{hex}:{msg|api}: INCR, EXPIRE on the first hit, and the count
// and TTL come back.
//
// A loop thread never waits for Redis: acquire() decides from what this node
// knows — the count Redis last reported for the key plus this node's uses still
// in flight — and queues the INCR; the reply brings the count of every node's
// uses, and settles the decision's RateTicket: a use the count put past the
// limit is refused by whoever acknowledges it (the store writer asks before it
// stores). So the limit holds exactly across nodes for every use acknowledged
// after its INCR was answered. When Redis fails a use (or does not answer
// within the writer's wait), it is counted here only (the node's own limit).
//
// Threads: any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/shared_rate_counter.h"
#include "migrate/redis_command_queue.h"

namespace buzz::migrate {

class RedisRateCounter final : public engine::SharedRateCounter {
 public:
  explicit RedisRateCounter(RedisCommandQueue& commands, size_t max_keys = 100000);

  engine::RateDecision acquire(const engine::Pubkey& pk, std::string_view limit, uint32_t max, uint64_t window_secs,
                               uint64_t now) override;

 private:
  struct Window {
    uint64_t end = 0;        // the window's first second after (Redis's TTL when known)
    uint64_t counted = 0;    // every node's uses, as Redis last reported them
    uint32_t in_flight = 0;  // this node's uses queued but not yet answered
    uint64_t generation = 0; // which window a reply belongs to
  };
  void answered(const std::string& key, uint64_t generation, const engine::Result<RedisReply>& reply, uint64_t now,
                uint32_t max, engine::RateTicket& ticket);

  RedisCommandQueue& commands_;
  const size_t max_keys_;
  std::mutex mu_;
  std::unordered_map<std::string, Window> windows_;  // by Redis key
  uint64_t next_generation_ = 1;
};

}  // namespace buzz::migrate
