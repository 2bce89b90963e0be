// NegBuilder: the thread that builds NEG-OPEN sets, off the loops.
//
// A NEG-OPEN reads every event the filter matches and checks each against the
// read rules (3.6 s for a million, docs/performance.md); on a loop that would
// stall every connection the loop serves. The relay hands the build here and
// the result comes back to the connection's loop through Loop::post. One
// thread, at most kMaxQueued builds waiting: past that a NEG-OPEN is refused
// (rate-limited) rather than queued without bound.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace buzz::server {

class NegBuilder {
 public:
  static constexpr size_t kMaxQueued = 8;

  NegBuilder() = default;
  NegBuilder(const NegBuilder&) = delete;
  NegBuilder& operator=(const NegBuilder&) = delete;
  ~NegBuilder() { stop(); }

  void start();
  // Finishes the build in progress; the ones waiting are dropped (their loops
  // have stopped, so nobody would read the answer).
  void stop();
  // False when kMaxQueued builds wait already, or when stopping.
  bool submit(std::function<void()> build);

 private:
  void work();

  std::mutex mu_;  // guards builds_ and stopping_
  std::condition_variable cv_;
  std::deque<std::function<void()>> builds_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace buzz::server
