// IntervalClock: when `interval` schedules fire (docs/reference/workflows.md §4.2). Upstream
// starts each clock at "now" and only moves it after a fire, so an interval
// workflow never fires; the Buzz rule is: a workflow's clock starts the first
// time the scheduler sees it — at its newest schedule run if it has one (a
// restart keeps the clock), else at that tick — and it fires once `interval`
// has passed since the clock's last mark. Dispatcher thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace buzz::server {

class IntervalClock {
 public:
  // Whether workflow `id` fires at `now` (and if so, marks it). `last_run` is
  // asked only the first time `id` is seen: the creation time of its newest
  // schedule run, if any.
  bool due(const std::string& id, uint64_t interval, uint64_t now,
           const std::function<std::optional<uint64_t>()>& last_run);
  // Forgets the workflows this tick did not list (deleted, disabled, changed trigger).
  void keep_only(const std::unordered_set<std::string>& listed);

 private:
  std::unordered_map<std::string, uint64_t> last_fired_;
};

}  // namespace buzz::server
