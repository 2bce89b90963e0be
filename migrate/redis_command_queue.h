// RedisCommandQueue: the one thread that writes to Redis for a relay node
// (PUBLISH, presence SET/DEL, the rate-limit script). Callers queue a command
// with a callback and return at once; the thread sends everything queued as one
// pipeline on its connection and calls each callback with the reply, in order.
//
// When Redis is unreachable the queued commands fail (their callbacks see the
// error) and the thread reconnects with a backoff of 1 s doubling to 30 s.
// The queue is bounded: submit() refuses past `capacity`, never blocks.
//
// Threads: submit() from any thread; callbacks run on the queue's thread and
// must not block.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/result.h"
#include "migrate/redis_connection.h"

namespace buzz::migrate {

class RedisCommandQueue {
 public:
  // The reply, or the reason there is none (an error reply is a reply).
  using Callback = std::function<void(const engine::Result<RedisReply>&)>;
  using Warn = std::function<void(const std::string&)>;

  RedisCommandQueue(RedisUrl url, Warn warn, size_t capacity = 100000);
  ~RedisCommandQueue();

  void start();
  // Sends what is queued, then stops.
  void stop();
  // False when the queue is full (the command is not sent; the callback is not called).
  bool submit(std::vector<std::string> args, Callback done = {});

  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }

 private:
  struct Job {
    std::vector<std::string> args;
    Callback done;
  };
  void run();
  void send(std::vector<Job>& jobs);
  void fail_all(std::vector<Job>& jobs, const std::string& why);

  const RedisUrl url_;
  const Warn warn_;
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::unique_ptr<RedisConnection> conn_;  // the queue thread's only
  std::chrono::seconds backoff_ = kRedisFirstBackoff;
  std::chrono::steady_clock::time_point retry_at_{};
  std::atomic<uint64_t> failed_{0};
  std::thread thread_;
};

}  // namespace buzz::migrate
