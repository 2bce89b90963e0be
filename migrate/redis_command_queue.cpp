// RedisCommandQueue: one pipeline per wake-up; see redis_command_queue.h.
#include "migrate/redis_command_queue.h"

#include <algorithm>

namespace buzz::migrate {
namespace {

constexpr size_t kMaxPipeline = 1024;  // commands per round trip
constexpr std::chrono::milliseconds kIoTimeout{2000};

}  // namespace

RedisCommandQueue::RedisCommandQueue(RedisUrl url, Warn warn, size_t capacity)
    : url_(std::move(url)), warn_(std::move(warn)), capacity_(capacity) {}

RedisCommandQueue::~RedisCommandQueue() { stop(); }

void RedisCommandQueue::start() {
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
}

void RedisCommandQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool RedisCommandQueue::submit(std::vector<std::string> args, Callback done) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= capacity_ || stopping_) return false;
    queue_.push_back({std::move(args), std::move(done)});
  }
  wake_.notify_one();
  return true;
}

void RedisCommandQueue::run() {
  std::vector<Job> jobs;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything is sent
      const size_t n = std::min(queue_.size(), kMaxPipeline);
      for (size_t i = 0; i < n; ++i) {
        jobs.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    send(jobs);
    jobs.clear();
  }
}

void RedisCommandQueue::send(std::vector<Job>& jobs) {
  if (!conn_) {
    // While Redis is away, commands fail at once rather than wait: a publish
    // or a counter is worth nothing late.
    if (std::chrono::steady_clock::now() < retry_at_) return fail_all(jobs, "Redis unreachable (retrying)");
    auto c = RedisConnection::connect(url_, kIoTimeout);
    if (!c) {
      retry_at_ = std::chrono::steady_clock::now() + backoff_;
      warn_("Redis unreachable, retrying in " + std::to_string(backoff_.count()) + " s: " + c.error());
      backoff_ = std::min(backoff_ * 2, kRedisMaxBackoff);
      return fail_all(jobs, c.error());
    }
    conn_ = std::move(*c);
    backoff_ = kRedisFirstBackoff;
  }
  for (const Job& j : jobs) conn_->append(j.args);
  engine::Status sent = conn_->flush();
  size_t answered = 0;
  for (; sent && answered < jobs.size(); ++answered) {
    engine::Result<RedisReply> reply = conn_->read_reply();
    if (!reply) {
      sent = engine::Error{reply.error()};
      break;
    }
    if (jobs[answered].done) jobs[answered].done(reply);
  }
  if (sent) return;
  conn_.reset();  // a broken pipeline: reconnect for the next batch
  warn_("Redis connection lost: " + sent.error());
  std::vector<Job> rest(std::make_move_iterator(jobs.begin() + ptrdiff_t(answered)), std::make_move_iterator(jobs.end()));
  fail_all(rest, sent.error());
}

void RedisCommandQueue::fail_all(std::vector<Job>& jobs, const std::string& why) {
  failed_.fetch_add(jobs.size(), std::memory_order_relaxed);
  const engine::Result<RedisReply> error{engine::Error{why}};
  for (Job& j : jobs) {
    if (j.done) j.done(error);
  }
}

}  // namespace buzz::migrate
