// SendMemory: the relay-wide bound on bytes queued for clients, shared by
// every loop (docs/limits.md, "Send queues").
//
// Each loop counts its own queued bytes with plain adds on the paths that
// already touch a queue (Loop::enqueue, Loop::on_send) and publishes the sum
// here once a tick, with its largest connection's backlog while the relay is
// under pressure. Past `max`, each loop closes its own slowest readers (the
// most bytes waiting) first, but only those at least as far behind as any
// other loop's, so the relay sheds in one order across loops. Any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace buzz::net {

struct SendMemory {
  SendMemory(size_t loops, int64_t max_bytes)
      : max(max_bytes), count(loops), per_loop(std::make_unique<PerLoop[]>(loops)) {}

  struct PerLoop {
    std::atomic<int64_t> queued{0};   // the loop's bytes queued, as of its last tick
    std::atomic<int64_t> largest{0};  // its largest connection's, while under pressure
    std::atomic<int64_t> at_ms{0};    // when `largest` was measured (steady clock)
  };

  int64_t total() const {
    int64_t sum = 0;
    for (size_t i = 0; i < count; ++i) sum += per_loop[i].queued.load(std::memory_order_relaxed);
    return sum;
  }

  const int64_t max;  // 0 = no bound
  const size_t count;
  std::unique_ptr<PerLoop[]> per_loop;
};

}  // namespace buzz::net
