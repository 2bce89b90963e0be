// RedisRateCounter; see redis_rate_counter.h.
#include "migrate/redis_rate_counter.h"

#include <algorithm>

namespace buzz::migrate {
namespace {

// docs/reference/compat-backends.md §3.3, with the caller's EXPIRE for a key that lost its TTL done inside.
constexpr const char* kScript =
    "local c = redis.call('INCR', KEYS[1]) "
    "if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end "
    "local t = redis.call('TTL', KEYS[1]) "
    "if t < 0 then redis.call('EXPIRE', KEYS[1], ARGV[1]) t = tonumber(ARGV[1]) end "
    "return {c, t}";

}  // namespace

RedisRateCounter::RedisRateCounter(RedisCommandQueue& commands, size_t max_keys)
    : commands_(commands), max_keys_(max_keys) {}

engine::RateDecision RedisRateCounter::acquire(const engine::Pubkey& pk, std::string_view limit, uint32_t max,
                                               uint64_t window_secs, uint64_t now) {
  if (max == 0) return {};  // no limit
  std::string key = "buzz:ratelimit:" + engine::to_hex(pk) + ":" + std::string(limit);
  uint64_t generation;
  auto ticket = std::make_shared<engine::RateTicket>();
  {
    std::lock_guard lock(mu_);
    if (windows_.size() >= max_keys_ && !windows_.count(key)) {
      std::erase_if(windows_, [&](const auto& kv) { return kv.second.end <= now && kv.second.in_flight == 0; });
      if (windows_.size() >= max_keys_) windows_.erase(windows_.begin());  // bounded before exact
    }
    Window& w = windows_[key];
    if (now >= w.end) w = {now + window_secs, 0, 0, next_generation_++};
    if (w.counted + w.in_flight >= max) return {false, std::max<uint64_t>(1, w.end - now), nullptr};
    ++w.in_flight;
    generation = w.generation;
  }
  const bool queued = commands_.submit({"EVAL", kScript, "1", key, std::to_string(window_secs)},
                                       [this, key, generation, now, max, ticket](const engine::Result<RedisReply>& r) {
                                         answered(key, generation, r, now, max, *ticket);
                                       });
  if (!queued) answered(key, generation, engine::Error{"queue full"}, now, max, *ticket);
  return {true, 0, std::move(ticket)};
}

void RedisRateCounter::answered(const std::string& key, uint64_t generation, const engine::Result<RedisReply>& r,
                                uint64_t now, uint32_t max, engine::RateTicket& ticket) {
  const bool valid = r && r->type == RedisReply::Type::kArray && r->elements.size() == 2;
  // The count of every node's uses, this one's included: past `max`, this use is one too many.
  const uint64_t count = valid ? uint64_t(std::max<long long>(0, r->elements[0].integer)) : 0;
  {
    std::lock_guard lock(mu_);
    auto it = windows_.find(key);
    if (it != windows_.end() && it->second.generation == generation) {  // else a window since replaced
      Window& w = it->second;
      --w.in_flight;
      if (!valid) {
        ++w.counted;  // Redis failed it: it still counts here
      } else {
        // Replies come back in order on one connection: the latest count is the newest.
        w.counted = count;
        w.end = now + uint64_t(std::max<long long>(1, r->elements[1].integer));
      }
    }
  }
  // After the window: the next use, once this one is acknowledged, is decided from this count.
  ticket.settle(!valid || count <= max);
}

}  // namespace buzz::migrate
