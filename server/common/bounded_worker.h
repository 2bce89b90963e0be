// BoundedWorker: one named thread that runs jobs off the loops, with a short
// queue. Past `max_queued` waiting jobs a submit is refused, and the caller
// answers "busy" rather than queue without bound (the NEG-OPEN set builds,
// server/relay; the audit log's REST reads, server/http). A job answers
// through whatever it captured (Loop::post, a connection's later answer).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace buzz::server {

class BoundedWorker {
 public:
  // `name` is the thread's name (docs/threads.md).
  BoundedWorker(std::string name, size_t max_queued) : name_(std::move(name)), max_queued_(max_queued) {}
  BoundedWorker(const BoundedWorker&) = delete;
  BoundedWorker& operator=(const BoundedWorker&) = delete;
  ~BoundedWorker() { stop(); }

  void start();
  // Finishes the job in hand; the ones waiting are dropped (their callers have
  // stopped, so nobody would read the answer). Idempotent.
  void stop();
  // Any thread. False when max_queued jobs wait already, or when stopping.
  bool submit(std::function<void()> job);

 private:
  void work();

  const std::string name_;
  const size_t max_queued_;
  std::mutex mu_;  // guards jobs_ and stopping_
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace buzz::server
