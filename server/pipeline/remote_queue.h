// RemoteQueue: other nodes' events between the PubSub's subscriber thread and
// the fan-out (docs/reference/compat-backends.md §3.2's broadcast queue). It holds at most
// `capacity` events (4096 upstream); a consumer that falls that far behind
// "lags": the oldest waiting events are dropped and counted, never the
// subscriber blocked (Redis would otherwise buffer without bound).
//
// Threads: not locked; the StoreWriter holds it under its own mutex.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "engine/pubsub.h"

namespace buzz::server {

inline constexpr size_t kRemoteQueueCapacity = 4096;

class RemoteQueue {
 public:
  explicit RemoteQueue(size_t capacity = kRemoteQueueCapacity) : capacity_(capacity) {}

  // Appends in order; returns how many of the oldest waiting events made room.
  size_t push(std::vector<engine::RemoteEvent>&& events) {
    size_t lagged = 0;
    for (engine::RemoteEvent& e : events) {
      if (events_.size() == capacity_) {
        events_.pop_front();
        ++lagged;
      }
      events_.push_back(std::move(e));
    }
    return lagged;
  }
  // Everything waiting, oldest first.
  std::vector<engine::RemoteEvent> take() {
    std::vector<engine::RemoteEvent> out(std::make_move_iterator(events_.begin()), std::make_move_iterator(events_.end()));
    events_.clear();
    return out;
  }
  bool empty() const { return events_.empty(); }
  size_t size() const { return events_.size(); }

 private:
  size_t capacity_;
  std::deque<engine::RemoteEvent> events_;
};

}  // namespace buzz::server
