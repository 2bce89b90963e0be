#include "server/relay/neg_builder.h"

#include "engine/thread_role.h"

namespace buzz::server {

void NegBuilder::start() {
  worker_ = std::thread([this] {
    engine::set_thread_role("buzz-neg", engine::ThreadRole::kBackground);
    work();
  });
}

void NegBuilder::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    builds_.clear();
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

bool NegBuilder::submit(std::function<void()> build) {
  std::lock_guard lock(mu_);
  if (stopping_ || builds_.size() >= kMaxQueued) return false;
  builds_.push_back(std::move(build));
  cv_.notify_one();
  return true;
}

void NegBuilder::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !builds_.empty(); });
    if (stopping_) return;
    std::function<void()> build = std::move(builds_.front());
    builds_.pop_front();
    lock.unlock();
    build();
    lock.lock();
  }
}

}  // namespace buzz::server
