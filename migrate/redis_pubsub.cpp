// RedisPubSub: §3.2's publisher, subscriber and backoff; see redis_pubsub.h.
#include "migrate/redis_pubsub.h"

#include <unistd.h>

#include <algorithm>

#include "engine/channel.h"
#include "engine/event_parse.h"

namespace buzz::migrate {
namespace {

constexpr std::chrono::milliseconds kConnectTimeout{2000};
constexpr size_t kMaxBatch = 256;  // events handed to the sink at once

}  // namespace

RedisPubSub::RedisPubSub(RedisUrl url, RedisCommandQueue& commands, RedisCommandQueue::Warn warn)
    : url_(std::move(url)), commands_(commands), warn_(std::move(warn)) {}

RedisPubSub::~RedisPubSub() { stop(); }

void RedisPubSub::publish(const engine::Id& id, std::string_view channel, std::string_view json) {
  // The cache first: this node's subscriber may see the message before PUBLISH returns.
  echo_.insert(id);
  std::string name(kChannelPrefix);
  name += channel.empty() ? kNilUuid : channel;
  auto failed = [this, id](const std::string& why) {
    echo_.erase(id);
    counters_.publish_failed.fetch_add(1, std::memory_order_relaxed);
    // One line per failure would flood the log while Redis is away: every 1000th.
    if (counters_.publish_failed.load(std::memory_order_relaxed) % 1000 == 1) warn_("Redis PUBLISH failed: " + why);
  };
  bool queued = commands_.submit({"PUBLISH", std::move(name), std::string(json)},
                                 [this, failed](const engine::Result<RedisReply>& r) {
                                   if (!r) return failed(r.error());
                                   if (r->type == RedisReply::Type::kError) return failed(r->str);
                                   counters_.published.fetch_add(1, std::memory_order_relaxed);
                                 });
  if (!queued) failed("the Redis command queue is full");
}

void RedisPubSub::start(Sink sink) {
  sink_ = std::move(sink);
  thread_ = std::thread([this] { run(); });
}

void RedisPubSub::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    if (listening_) listening_->shutdown();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool RedisPubSub::wait_subscribed(std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  return wake_.wait_for(lock, limit, [&] { return stopping_ || subscribed(); }) && subscribed();
}

bool RedisPubSub::pause(std::chrono::seconds d) {
  std::unique_lock lock(mu_);
  return !wake_.wait_for(lock, d, [&] { return stopping_; });
}

void RedisPubSub::run() {
  std::chrono::seconds backoff = kRedisFirstBackoff;
  for (bool first = true;; first = false) {
    if (!first) {
      counters_.reconnects.fetch_add(1, std::memory_order_relaxed);
      if (!pause(backoff)) return;
      backoff = std::min(backoff * 2, kRedisMaxBackoff);
    }
    auto conn = RedisConnection::connect(url_, kConnectTimeout, /*io_timeout=*/false);
    if (!conn) {
      warn_("Redis subscriber cannot connect, retrying in " + std::to_string(backoff.count()) + " s: " + conn.error());
      continue;
    }
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      listening_ = conn->get();
    }
    const bool clean = listen(**conn);
    subscribed_.store(false, std::memory_order_release);
    {
      std::lock_guard lock(mu_);
      listening_ = nullptr;
      if (stopping_) return;
    }
    if (clean) backoff = kRedisFirstBackoff;  // only a cleanly ended stream resets the wait
    warn_(std::string("Redis subscription ") + (clean ? "ended" : "failed") + ", resubscribing in " +
          std::to_string(backoff.count()) + " s");
  }
}

bool RedisPubSub::listen(RedisConnection& conn) {
  // Named after the process, so CLIENT LIST tells which node's subscriber is which.
  (void)conn.command({"CLIENT", "SETNAME", "buzz-subscriber-" + std::to_string(getpid())});
  conn.append({"PSUBSCRIBE", std::string(kChannelPrefix) + "*"});
  if (!conn.flush()) return false;
  auto confirmed = conn.read_reply();
  if (!confirmed || confirmed->type != RedisReply::Type::kArray) {
    warn_("Redis PSUBSCRIBE refused" + (confirmed ? ": " + confirmed->str : ""));
    return false;
  }
  {
    std::lock_guard lock(mu_);  // so wait_subscribed cannot miss the wake-up
    subscribed_.store(true, std::memory_order_release);
  }
  wake_.notify_all();
  std::vector<engine::RemoteEvent> batch;
  for (;;) {
    auto message = conn.read_reply();
    if (!message) return conn.closed_by_server();
    deliver(*message, &batch);
    // Whatever else has already arrived goes in the same batch: one hand-off per read.
    while (batch.size() < kMaxBatch) {
      std::optional<RedisReply> more = conn.buffered_reply();
      if (!more) break;
      deliver(*more, &batch);
    }
    if (!batch.empty()) {
      counters_.received.fetch_add(batch.size(), std::memory_order_relaxed);
      sink_(std::move(batch));
      batch.clear();
    }
  }
}

void RedisPubSub::deliver(const RedisReply& m, std::vector<engine::RemoteEvent>* batch) {
  if (m.type != RedisReply::Type::kArray || m.elements.size() != 4 || m.elements[0].str != "pmessage") return;
  std::string_view channel = m.elements[2].str;
  const std::string& json = m.elements[3].str;
  if (!channel.starts_with(kChannelPrefix)) return;
  channel.remove_prefix(kChannelPrefix.size());
  if (channel != kNilUuid && !engine::is_canonical_uuid(channel)) {
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    warn_("Redis message dropped: channel '" + std::string(channel) + "' is not a UUID");
    return;
  }
  engine::Result<engine::Event> event = engine::parse_event_json(json);
  if (!event) {
    counters_.dropped.fetch_add(1, std::memory_order_relaxed);
    warn_("Redis message dropped: " + event.error());
    return;
  }
  if (echo_.take(event->id)) {  // this node published it and delivered it already
    counters_.echo_skipped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  batch->push_back({std::make_shared<const engine::Event>(std::move(*event)),
                    channel == kNilUuid ? std::string() : std::string(channel)});
}

}  // namespace buzz::migrate
