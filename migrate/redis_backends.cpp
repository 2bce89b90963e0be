// RedisBackends; see redis_backends.h.
#include "migrate/redis_backends.h"

namespace buzz::migrate {

engine::Result<std::unique_ptr<RedisBackends>> RedisBackends::open(std::string_view url, engine::PresenceStore& local,
                                                                   RedisCommandQueue::Warn warn) {
  auto parsed = parse_redis_url(url);
  if (!parsed) return engine::Error{parsed.error()};
  auto probe = RedisConnection::connect(*parsed, std::chrono::milliseconds(3000));
  if (!probe) return engine::Error{probe.error()};
  if (auto pong = (*probe)->command({"PING"}); !pong) return engine::Error{"Redis PING failed: " + pong.error()};
  std::unique_ptr<RedisBackends> b(new RedisBackends(*parsed, local, std::move(warn)));
  b->commands_.start();
  return b;
}

RedisBackends::RedisBackends(const RedisUrl& url, engine::PresenceStore& local, RedisCommandQueue::Warn warn)
    : commands_(url, warn), pubsub_(url, commands_, warn), presence_(commands_, local), rate_(commands_) {}

RedisBackends::~RedisBackends() { stop(); }

void RedisBackends::stop() {
  pubsub_.stop();
  commands_.stop();
}

}  // namespace buzz::migrate
