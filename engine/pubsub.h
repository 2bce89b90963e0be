// PubSub: carries events between relay nodes that serve one team, so an event
// accepted on one node reaches the subscribers connected to the others.
//
// The relay publishes every committed event and every ephemeral event it fans
// out locally; the adapter hands back the events other nodes published, each
// once, never the node's own (docs/reference/compat-backends.md §3.2: the local-echo cache).
// The embedded build runs one node and has no PubSub; migrate/redis_pubsub.h is
// the Redis one.
//
// Threads: publish() may be called from any thread and never blocks (it queues);
// the sink runs on the adapter's own subscriber thread and must not block either.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"

namespace buzz::engine {

// An event another node published, with the channel it was published under
// ("" = global).
struct RemoteEvent {
  std::shared_ptr<const Event> event;  // its `raw` is the JSON as published, sent to subscribers as is
  std::string channel;
};

class PubSub {
 public:
  using Sink = std::function<void(std::vector<RemoteEvent>&& events)>;
  virtual ~PubSub() = default;
  // Queues `json` (the event's canonical JSON) for the other nodes, under its
  // channel ("" = global). A failed publish is logged; local fan-out never depends on it.
  virtual void publish(const Id& id, std::string_view channel, std::string_view json) = 0;
  // Starts delivering the other nodes' events to `sink`, in the order received.
  virtual void start(Sink sink) = 0;
  // Stops delivering; returns once the sink is no longer called.
  virtual void stop() = 0;
};

}  // namespace buzz::engine
