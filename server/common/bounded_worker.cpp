// The worker thread and its queue; see bounded_worker.h.
#include "server/common/bounded_worker.h"

#include "engine/thread_role.h"

namespace buzz::server {

void BoundedWorker::start() {
  worker_ = std::thread([this] {
    engine::set_thread_role(name_.c_str(), engine::ThreadRole::kBackground);
    work();
  });
}

void BoundedWorker::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

bool BoundedWorker::submit(std::function<void()> job) {
  std::lock_guard lock(mu_);
  if (stopping_ || jobs_.size() >= max_queued_) return false;
  jobs_.push_back(std::move(job));
  cv_.notify_one();
  return true;
}

void BoundedWorker::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

}  // namespace buzz::server
