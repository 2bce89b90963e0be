// RestPool: a few threads that make the harness's fire-and-forget REST calls
// (reactions, presence, owner lookups) off the event loop, each thread with
// its own RestClient. A job that throws is logged and dropped: these calls
// are best effort (docs/reference/agents-and-cli.md §A.5.3).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace buzz::acp {

class RestClient;

class RestPool {
 public:
  using Job = std::function<void(RestClient&)>;
  RestPool(int threads, std::string rest_url, std::string token, std::string private_key_hex);
  ~RestPool();  // finishes the queued jobs, then joins
  RestPool(const RestPool&) = delete;
  RestPool& operator=(const RestPool&) = delete;

  // Queues a job; dropped (with a warning) past 10,000 waiting.
  void submit(Job job);

 private:
  void work();

  const std::string rest_url_, token_, key_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace buzz::acp
