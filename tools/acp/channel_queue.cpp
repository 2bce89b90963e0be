// ChannelQueues; see channel_queue.h.
#include "tools/acp/channel_queue.h"

#include <algorithm>
#include <cstdio>
#include <random>

namespace buzz::acp {

std::chrono::milliseconds retry_backoff(int retry) {
  const int64_t ms = int64_t(5000) << std::min(std::max(retry - 1, 0), 10);
  return std::chrono::milliseconds(std::min<int64_t>(ms, 300'000));
}

bool ChannelQueues::push(const std::string& channel, TaggedEvent e) {
  Channel& c = channels_[channel];
  bool kept_all = true;
  if (c.events.size() >= kCapacity) {
    std::fprintf(stderr, "buzz acp: warning: channel %s has %zu events waiting; dropping the oldest\n", channel.c_str(),
                 c.events.size());
    if (!c.first_dropped) c.first_dropped = c.events.front().event.event.created_at;
    c.events.pop_front();
    kept_all = false;
  }
  c.events.push_back({next_seq_++, std::move(e)});
  return kept_all;
}

std::optional<std::string> ChannelQueues::next_ready(Clock::time_point now) const {
  const std::string* best = nullptr;
  uint64_t best_seq = 0;
  for (const auto& [id, c] : channels_) {
    if (c.events.empty() || c.in_flight || c.retry_after > now) continue;
    if (!best || c.events.front().seq < best_seq) {
      best = &id;
      best_seq = c.events.front().seq;
    }
  }
  return best ? std::optional<std::string>(*best) : std::nullopt;
}

std::optional<Clock::time_point> ChannelQueues::next_retry() const {
  std::optional<Clock::time_point> out;
  for (const auto& [id, c] : channels_) {
    if (c.events.empty() || c.in_flight || c.retry_after == Clock::time_point{}) continue;
    if (!out || c.retry_after < *out) out = c.retry_after;
  }
  return out;
}

std::vector<TaggedEvent> ChannelQueues::take_batch(const std::string& channel, Clock::time_point now) {
  Channel& c = channels_[channel];
  std::vector<TaggedEvent> batch;
  while (!c.events.empty() && batch.size() < kBatch) {
    batch.push_back(std::move(c.events.front().event));
    c.events.pop_front();
  }
  c.in_flight = true;
  c.in_flight_since = now;
  return batch;
}

std::vector<std::string> ChannelQueues::clear_stuck(Clock::time_point now, Clock::duration deadline) {
  std::vector<std::string> cleared;
  for (auto& [id, c] : channels_) {
    if (!c.in_flight || now - c.in_flight_since <= deadline) continue;
    c.in_flight = false;
    cleared.push_back(id);
  }
  return cleared;
}

void ChannelQueues::finish(const std::string& channel, bool succeeded) {
  Channel& c = channels_[channel];
  c.in_flight = false;
  if (succeeded) {
    c.retries = 0;
    c.retry_after = {};
  }
}

bool ChannelQueues::requeue(const std::string& channel, std::vector<TaggedEvent> batch, Clock::time_point now) {
  Channel& c = channels_[channel];
  c.in_flight = false;
  if (++c.retries > kMaxRetries) {
    std::fprintf(stderr, "buzz acp: ERROR: channel %s: a batch of %zu events failed %d times; discarding it\n",
                 channel.c_str(), batch.size(), kMaxRetries + 1);
    c.retries = 0;
    c.retry_after = {};
    return false;
  }
  thread_local std::mt19937 rng{std::random_device{}()};
  const double jitter = std::uniform_real_distribution<double>(0.8, 1.2)(rng);
  c.retry_after = now + std::chrono::milliseconds(int64_t(retry_backoff(c.retries).count() * jitter));
  // Back at the front, in their order, ahead of what arrived meanwhile.
  uint64_t seq = c.events.empty() ? next_seq_ : c.events.front().seq;
  for (auto it = batch.rbegin(); it != batch.rend(); ++it) c.events.push_front({--seq, std::move(*it)});
  while (c.events.size() > kCapacity) c.events.pop_back();
  return true;
}

std::vector<TaggedEvent> ChannelQueues::drain(const std::string& channel) {
  std::vector<TaggedEvent> out;
  auto it = channels_.find(channel);
  if (it == channels_.end()) return out;
  for (Entry& e : it->second.events) out.push_back(std::move(e.event));
  it->second.events.clear();
  return out;
}

bool ChannelQueues::in_flight(const std::string& channel) const {
  auto it = channels_.find(channel);
  return it != channels_.end() && it->second.in_flight;
}

size_t ChannelQueues::waiting(const std::string& channel) const {
  auto it = channels_.find(channel);
  return it == channels_.end() ? 0 : it->second.events.size();
}

std::optional<uint64_t> ChannelQueues::first_dropped(const std::string& channel) const {
  auto it = channels_.find(channel);
  return it == channels_.end() ? std::nullopt : it->second.first_dropped;
}

}  // namespace buzz::acp
