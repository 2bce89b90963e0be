// RateLimiter: at most N uses per key in any rolling window (docs/reference/rest-api.md §3.1's
// 50 token mints per pubkey per hour). In memory, bounded in keys: when full,
// keys whose window has passed are dropped first, then the oldest. Any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "engine/hex.h"

namespace buzz::server {

class RateLimiter {
 public:
  RateLimiter(uint32_t limit, uint64_t window_secs, size_t max_keys = 100000)
      : limit_(limit), window_(window_secs), max_keys_(max_keys) {}

  // 0 if the use is allowed (and counts it); else seconds until one is.
  uint64_t acquire(const engine::Pubkey& key, uint64_t now);

 private:
  void evict(uint64_t now);

  uint32_t limit_;
  uint64_t window_;
  size_t max_keys_;
  std::mutex mu_;
  std::unordered_map<engine::Pubkey, std::deque<uint64_t>, engine::KeyBytesHash> uses_;
};

}  // namespace buzz::server
