// RedisRateCounter; see redis_rate_counter.h.
#include "migrate/redis_rate_counter.h"

#include <algorithm>

namespace buzz::migrate {
namespace {

// engine::gcra in Redis's clock: ARGV = interval, tolerance (ms). Returns
// {allowed, ms from now until the key's bucket is full again}.
constexpr const char* kScript =
    "local t = redis.call('TIME') "
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "
    "local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2]) "
    "local tat = tonumber(redis.call('GET', KEYS[1]) or 0) "
    "if tat > now + tolerance + interval then tat = now end "
    "if tat < now then tat = now end "
    "if tat - now > tolerance then return {0, tat - now} end "
    "tat = tat + interval "
    "redis.call('SET', KEYS[1], tat, 'PX', tat - now + 1000) "
    "return {1, tat - now}";

}  // namespace

RedisRateCounter::RedisRateCounter(RedisCommandQueue& commands, size_t max_keys)
    : commands_(commands), max_keys_(max_keys) {}

engine::RateDecision RedisRateCounter::acquire(const engine::Pubkey& pk, std::string_view limit,
                                               const engine::Rate& rate, uint64_t now_ms) {
  if (rate.unlimited()) return {};
  std::string key = "buzz:ratelimit:" + engine::to_hex(pk) + ":" + std::string(limit);
  auto ticket = std::make_shared<engine::RateTicket>();
  {
    std::lock_guard lock(mu_);
    if (tat_ms_.size() >= max_keys_ && !tat_ms_.count(key)) {
      std::erase_if(tat_ms_, [&](const auto& kv) { return kv.second <= now_ms; });
      if (tat_ms_.size() >= max_keys_) tat_ms_.erase(tat_ms_.begin());  // bounded before exact
    }
    uint64_t& tat = tat_ms_[key];
    const engine::GcraStep step = engine::gcra(tat, now_ms, rate);
    if (!step.allowed) return {false, engine::wait_secs(step.wait_ms), nullptr};
    tat = step.tat_ms;
  }
  const bool queued =
      commands_.submit({"EVAL", kScript, "1", key, std::to_string(rate.interval_ms()), std::to_string(rate.tolerance_ms())},
                       [this, key, now_ms, ticket](const engine::Result<RedisReply>& r) { answered(key, r, now_ms, *ticket); });
  if (!queued) answered(key, engine::Error{"queue full"}, now_ms, *ticket);
  return {true, 0, std::move(ticket)};
}

void RedisRateCounter::answered(const std::string& key, const engine::Result<RedisReply>& r, uint64_t sent_ms,
                                engine::RateTicket& ticket) {
  const bool valid = r && r->type == RedisReply::Type::kArray && r->elements.size() == 2;
  if (!valid) return ticket.settle(true);  // Redis failed it: this node's own state holds
  const bool allowed = r->elements[0].integer == 1;
  // Every node's uses: this node's state moves up to what Redis reported.
  const uint64_t tat = sent_ms + uint64_t(std::max<long long>(0, r->elements[1].integer));
  {
    std::lock_guard lock(mu_);
    uint64_t& mine = tat_ms_[key];
    mine = std::max(mine, tat);
  }
  ticket.settle(allowed);
}

}  // namespace buzz::migrate
