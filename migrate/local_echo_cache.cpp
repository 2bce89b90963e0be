// LocalEchoCache; see local_echo_cache.h.
#include "migrate/local_echo_cache.h"

namespace buzz::migrate {

void LocalEchoCache::insert(const engine::Id& id, Clock::time_point now) {
  std::lock_guard lock(mu_);
  trim(now);
  ids_[id] = now;
  order_.emplace_back(now, id);
  // Over capacity: the oldest go first (their echo is late or lost).
  while (ids_.size() > kCapacity && !order_.empty()) {
    auto [at, old] = order_.front();
    order_.pop_front();
    auto it = ids_.find(old);
    if (it != ids_.end() && it->second == at) ids_.erase(it);
  }
}

void LocalEchoCache::erase(const engine::Id& id) {
  std::lock_guard lock(mu_);
  ids_.erase(id);
}

bool LocalEchoCache::take(const engine::Id& id, Clock::time_point now) {
  std::lock_guard lock(mu_);
  trim(now);
  return ids_.erase(id) > 0;
}

size_t LocalEchoCache::size() const {
  std::lock_guard lock(mu_);
  return ids_.size();
}

void LocalEchoCache::trim(Clock::time_point now) {
  while (!order_.empty() && (order_.front().first + kTtl <= now || order_.size() > 4 * kCapacity)) {
    auto [at, old] = order_.front();
    order_.pop_front();
    auto it = ids_.find(old);
    if (it != ids_.end() && it->second == at) ids_.erase(it);
  }
}

}  // namespace buzz::migrate
