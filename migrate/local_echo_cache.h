// LocalEchoCache: the ids of events this node published and has already
// delivered to its own subscribers, so that the copy Redis sends back to this
// node's subscriber connection is skipped (docs/reference/compat-backends.md §3.2): at most
// 10,000 ids, each kept 60 s at most. An id leaves when its echo arrives.
//
// Threads: any thread (one mutex).
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "engine/hex.h"

namespace buzz::migrate {

class LocalEchoCache {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kCapacity = 10000;
  static constexpr std::chrono::seconds kTtl{60};

  void insert(const engine::Id& id, Clock::time_point now = Clock::now());
  void erase(const engine::Id& id);
  // True if id was held (and still fresh): it is removed, and the caller skips the echo.
  bool take(const engine::Id& id, Clock::time_point now = Clock::now());
  size_t size() const;

 private:
  void trim(Clock::time_point now);

  mutable std::mutex mu_;
  // id -> when it was inserted; order_ holds the same (time, id) pairs oldest first,
  // with stale pairs (erased or re-inserted ids) skipped as they reach the front.
  std::unordered_map<engine::Id, Clock::time_point, engine::KeyBytesHash> ids_;
  std::deque<std::pair<Clock::time_point, engine::Id>> order_;
};

}  // namespace buzz::migrate
