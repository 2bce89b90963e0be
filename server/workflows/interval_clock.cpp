#include "server/workflows/interval_clock.h"

#include <algorithm>

namespace buzz::server {

bool IntervalClock::due(const std::string& id, uint64_t interval, uint64_t now,
                        const std::function<std::optional<uint64_t>()>& last_run) {
  auto it = last_fired_.find(id);
  if (it == last_fired_.end()) it = last_fired_.emplace(id, last_run().value_or(now)).first;
  it->second = std::min(it->second, now);  // a mark ahead of now (the clock was set back) counts from now
  if (now - it->second < interval) return false;
  it->second = now;
  return true;
}

void IntervalClock::keep_only(const std::unordered_set<std::string>& listed) {
  std::erase_if(last_fired_, [&](const auto& kv) { return !listed.contains(kv.first); });
}

}  // namespace buzz::server
