// RedisRateCounter: rate limits shared by every relay node through Redis
// (docs/reference/compat-backends.md §3.3). Each use runs one script on
// buzz:ratelimit:{hex}:{msg|api}: the GCRA step of engine/shared_rate_counter.h
// on the key's stored time (in Redis's own clock, so the nodes' clocks need not
// agree), and whether the use was allowed comes back.
//
// A loop thread never waits for Redis: acquire() decides from what this node
// knows — its own GCRA state, moved forward by every reply — and queues the
// script; the reply settles the decision's RateTicket: a use every node's uses
// put past the rate is refused by whoever acknowledges it (the store writer
// asks before it stores). So the limit holds across nodes for every use
// acknowledged after its reply. When Redis fails a use (or does not answer
// within the writer's wait), only this node's state holds (the node's own limit).
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

  engine::RateDecision acquire(const engine::Pubkey& pk, std::string_view limit, const engine::Rate& rate,
                               uint64_t now_ms) override;

 private:
  void answered(const std::string& key, const engine::Result<RedisReply>& reply, uint64_t sent_ms,
                engine::RateTicket& ticket);

  RedisCommandQueue& commands_;
  const size_t max_keys_;
  std::mutex mu_;
  std::unordered_map<std::string, uint64_t> tat_ms_;  // this node's GCRA state, by Redis key
};

}  // namespace buzz::migrate
