// The per-channel queues of the harness (docs/reference/agents-and-cli.md §A.5.1): at most
// 500 waiting events a channel (the oldest dropped beyond), batches of at most
// 50 of one channel, at most one batch in flight per channel, the channel with
// the oldest waiting event served first, failed batches back at the front
// after 5 s × 2^(n−1) (≤ 300 s, ±20 %), dead-lettered after 10 retries; a
// batch in flight past its deadline (max turn + 100 s) is stuck and cleared.
// Not thread-safe: the harness loop owns it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/acp/prompt_text.h"

namespace buzz::acp {

using Clock = std::chrono::steady_clock;

class ChannelQueues {
 public:
  static constexpr size_t kCapacity = 500;
  static constexpr size_t kBatch = 50;
  static constexpr int kMaxRetries = 10;

  // Adds an event; false when the queue was full and its oldest was dropped.
  bool push(const std::string& channel, TaggedEvent e);
  // The channel to serve next: events waiting, nothing in flight, no retry
  // pending; the oldest head first. nullopt when none.
  std::optional<std::string> next_ready(Clock::time_point now) const;
  // The earliest time a pending retry becomes ready (for the loop's timer).
  std::optional<Clock::time_point> next_retry() const;
  // Takes up to 50 events of `channel` and marks the channel in flight since `now`.
  std::vector<TaggedEvent> take_batch(const std::string& channel, Clock::time_point now);
  // The channels in flight for longer than `deadline`: no longer in flight
  // (their batches are given up), so their next events can be served.
  std::vector<std::string> clear_stuck(Clock::time_point now, Clock::duration deadline);
  // The turn is over: nothing in flight. `succeeded` resets the retry count.
  void finish(const std::string& channel, bool succeeded);
  // A failed batch back at the front, in order, with its backoff. False when
  // it has failed too often and was discarded (dead letter).
  bool requeue(const std::string& channel, std::vector<TaggedEvent> batch, Clock::time_point now);
  // Drops every waiting event of `channel` and returns them (membership removed).
  std::vector<TaggedEvent> drain(const std::string& channel);

  bool in_flight(const std::string& channel) const;
  size_t waiting(const std::string& channel) const;
  bool any_ready(Clock::time_point now) const { return next_ready(now).has_value(); }
  // The created_at of the first event dropped for a full queue (for `since`).
  std::optional<uint64_t> first_dropped(const std::string& channel) const;

 private:
  struct Entry {
    uint64_t seq;  // arrival order, for "oldest head first"
    TaggedEvent event;
  };
  struct Channel {
    std::deque<Entry> events;
    bool in_flight = false;
    Clock::time_point in_flight_since{};
    int retries = 0;
    Clock::time_point retry_after{};
    std::optional<uint64_t> first_dropped;
  };
  std::map<std::string, Channel> channels_;
  uint64_t next_seq_ = 0;
};

// 5 s × 2^(retry−1), capped at 300 s, before jitter.
std::chrono::milliseconds retry_backoff(int retry);

}  // namespace buzz::acp
