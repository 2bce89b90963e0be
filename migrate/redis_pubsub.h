// RedisPubSub: the PubSub (engine/pubsub.h) of several relay nodes over Redis,
// exactly as upstream does it (docs/reference/compat-backends.md §3.2):
//
//   publish    id into the local-echo cache, then PUBLISH buzz:channel:<uuid|nil>
//              <event JSON> through the node's command queue; a failed publish
//              takes the id out again and is logged.
//   subscribe  one dedicated connection runs PSUBSCRIBE buzz:channel:*; each
//              message's channel (nil UUID = global) and event are parsed (a bad
//              one is logged and dropped), an id found in the local-echo cache is
//              this node's own and skipped, and the rest go to the sink in batches.
//   reconnect  after an error or the end of the stream, wait 1 s doubling to
//              30 s; only a stream that ended cleanly resets the wait to 1 s.
//
// Threads: publish() from any thread (never blocks); the subscriber thread
// calls the sink.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/pubsub.h"
#include "migrate/local_echo_cache.h"
#include "migrate/redis_command_queue.h"
#include "migrate/redis_connection.h"

namespace buzz::migrate {

inline constexpr std::string_view kChannelPrefix = "buzz:channel:";
inline constexpr std::string_view kNilUuid = "00000000-0000-0000-0000-000000000000";

class RedisPubSub final : public engine::PubSub {
 public:
  struct Counters {
    std::atomic<uint64_t> published{0};
    std::atomic<uint64_t> publish_failed{0};
    std::atomic<uint64_t> received{0};      // other nodes' events handed to the sink
    std::atomic<uint64_t> echo_skipped{0};  // this node's own, back from Redis
    std::atomic<uint64_t> dropped{0};       // unparsable channel or event
    std::atomic<uint64_t> reconnects{0};
  };

  RedisPubSub(RedisUrl url, RedisCommandQueue& commands, RedisCommandQueue::Warn warn);
  ~RedisPubSub() override;

  void publish(const engine::Id& id, std::string_view channel, std::string_view json) override;
  void start(Sink sink) override;
  void stop() override;

  const Counters& counters() const { return counters_; }
  // True once the subscriber connection has confirmed its PSUBSCRIBE (tests wait for it).
  bool subscribed() const { return subscribed_.load(std::memory_order_acquire); }
  // Waits up to `limit` for that confirmation; whether it came. A node serves
  // only after it, or it would miss what other nodes publish meanwhile.
  bool wait_subscribed(std::chrono::milliseconds limit);

 private:
  void run();
  // One subscription, until it fails or ends; true if it ended cleanly.
  bool listen(RedisConnection& conn);
  void deliver(const RedisReply& message, std::vector<engine::RemoteEvent>* batch);
  // Waits `d` unless stopped first; false when stopped.
  bool pause(std::chrono::seconds d);

  const RedisUrl url_;
  RedisCommandQueue& commands_;
  const RedisCommandQueue::Warn warn_;
  Sink sink_;
  LocalEchoCache echo_;
  Counters counters_;
  std::atomic<bool> subscribed_{false};
  std::mutex mu_;  // guards stopping_ and listening_ (shutdown() from stop())
  std::condition_variable wake_;  // stop(), and the subscription confirmed
  bool stopping_ = false;
  RedisConnection* listening_ = nullptr;
  std::thread thread_;
};

}  // namespace buzz::migrate
