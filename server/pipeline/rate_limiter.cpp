#include "server/pipeline/rate_limiter.h"

#include <algorithm>

namespace buzz::server {

uint64_t RateLimiter::acquire(const engine::Pubkey& key, uint64_t now) {
  std::lock_guard lock(mu_);
  if (uses_.size() >= max_keys_ && !uses_.count(key)) evict(now);
  std::deque<uint64_t>& times = uses_[key];
  while (!times.empty() && times.front() + window_ <= now) times.pop_front();
  if (times.size() >= limit_) return std::max<uint64_t>(1, times.front() + window_ - now);
  times.push_back(now);
  return 0;
}

void RateLimiter::evict(uint64_t now) {
  std::erase_if(uses_, [&](const auto& kv) { return kv.second.empty() || kv.second.back() + window_ <= now; });
  if (uses_.size() < max_keys_) return;
  auto oldest = std::min_element(uses_.begin(), uses_.end(),
                                 [](const auto& a, const auto& b) { return a.second.back() < b.second.back(); });
  uses_.erase(oldest);
}

}  // namespace buzz::server
