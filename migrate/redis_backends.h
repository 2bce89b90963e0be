// RedisBackends: what `buzz serve --pubsub redis://…` plugs into the relay so
// that several nodes serve one team (issue 17 §2): cross-node fan-out
// (RedisPubSub), presence (RedisPresenceStore) and shared rate-limit windows
// (RedisRateCounter), all writing through one command queue.
//
// open() checks that Redis answers, so `buzz serve` refuses to start against a
// wrong URL instead of running as a lone node; afterwards an outage only
// degrades (publishes fail and are logged, reads fall back to the node's own view).
#pragma once

#include <memory>

#include "engine/presence_store.h"
#include "engine/result.h"
#include "migrate/redis_command_queue.h"
#include "migrate/redis_presence_store.h"
#include "migrate/redis_pubsub.h"
#include "migrate/redis_rate_counter.h"

namespace buzz::migrate {

class RedisBackends {
 public:
  // `local`: the node's in-memory presence, which the Redis one wraps.
  static engine::Result<std::unique_ptr<RedisBackends>> open(std::string_view url, engine::PresenceStore& local,
                                                             RedisCommandQueue::Warn warn);
  ~RedisBackends();

  RedisPubSub& pubsub() { return pubsub_; }
  RedisPresenceStore& presence() { return presence_; }
  RedisRateCounter& rate_counter() { return rate_; }
  // Stops the subscriber, then sends what is queued.
  void stop();

 private:
  RedisBackends(const RedisUrl& url, engine::PresenceStore& local, RedisCommandQueue::Warn warn);
  RedisCommandQueue commands_;
  RedisPubSub pubsub_;
  RedisPresenceStore presence_;
  RedisRateCounter rate_;
};

}  // namespace buzz::migrate
