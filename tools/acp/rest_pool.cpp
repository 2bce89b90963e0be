// RestPool; see rest_pool.h.
#include "tools/acp/rest_pool.h"

#include <cstdio>

#include "tools/acp/rest_client.h"

namespace buzz::acp {

RestPool::RestPool(int threads, std::string rest_url, std::string token, std::string private_key_hex)
    : rest_url_(std::move(rest_url)), token_(std::move(token)), key_(std::move(private_key_hex)) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

RestPool::~RestPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void RestPool::submit(Job job) {
  {
    std::lock_guard lock(mu_);
    if (jobs_.size() >= 10'000) {
      std::fprintf(stderr, "buzz acp: warning: REST queue full; dropping a call\n");
      return;
    }
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void RestPool::work() {
  std::unique_ptr<RestClient> client;
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    try {
      if (!client) client = std::make_unique<RestClient>(rest_url_, token_, key_);
      job(*client);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "buzz acp: REST call failed: %s\n", e.what());
    }
  }
}

}  // namespace buzz::acp
