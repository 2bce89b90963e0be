#include "tools/proxy/id_cache.h"

namespace buzz::proxy {

void TtlCache::expire(Clock::time_point now) {
  while (!order_.empty()) {
    auto it = map_.find(order_.back());
    if (it == map_.end() || now - it->second.used < ttl_) break;
    map_.erase(it);
    order_.pop_back();
  }
}

void TtlCache::put(const std::string& key, std::string value, Clock::time_point now) {
  expire(now);
  if (auto it = map_.find(key); it != map_.end()) {
    it->second.value = std::move(value);
    it->second.used = now;
    order_.splice(order_.begin(), order_, it->second.order);
    return;
  }
  if (map_.size() >= capacity_ && !order_.empty()) {
    map_.erase(order_.back());
    order_.pop_back();
  }
  order_.push_front(key);
  map_.emplace(key, Entry{std::move(value), now, order_.begin()});
}

std::optional<std::string> TtlCache::get(const std::string& key, Clock::time_point now) {
  expire(now);
  auto it = map_.find(key);
  if (it == map_.end()) return std::nullopt;
  it->second.used = now;
  order_.splice(order_.begin(), order_, it->second.order);
  return it->second.value;
}

}  // namespace buzz::proxy
