// RedisConnection: one hiredis connection in blocking mode, for the adapters
// that share Redis between relay nodes (redis_command_queue.h, redis_pubsub.h,
// redis_presence_store.h). Replies are copied out of hiredis into RedisReply
// values, so nothing of hiredis leaks past this file.
//
// Threads: one thread at a time; the owner serialises its use. shutdown() is
// the exception: any thread may call it to wake a read blocked on the socket.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.h"

struct redisContext;

namespace buzz::migrate {

// A lost Redis connection is tried again after 1 s, the wait doubling up to 30 s.
inline constexpr std::chrono::seconds kRedisFirstBackoff{1};
inline constexpr std::chrono::seconds kRedisMaxBackoff{30};

// redis://[[user]:password@]host[:port][/db]
struct RedisUrl {
  std::string host = "127.0.0.1";
  uint16_t port = 6379;
  std::string user;
  std::string password;
  int db = 0;
};
engine::Result<RedisUrl> parse_redis_url(std::string_view url);

struct RedisReply {
  enum class Type { kString, kArray, kInteger, kNil, kStatus, kError };
  Type type = Type::kNil;
  std::string str;  // kString, kStatus, kError
  long long integer = 0;
  std::vector<RedisReply> elements;  // kArray
};

class RedisConnection {
 public:
  // Connects, authenticates and selects the database; `timeout` bounds the
  // connect and then every read and write, unless `io_timeout` is false (a
  // subscriber waits for messages as long as it takes).
  static engine::Result<std::unique_ptr<RedisConnection>> connect(const RedisUrl& url,
                                                                  std::chrono::milliseconds timeout,
                                                                  bool io_timeout = true);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  // One command and its reply; an error reply is an Error carrying Redis's text.
  engine::Result<RedisReply> command(const std::vector<std::string>& args);
  // Pipelining: queue commands, then write them all and read their replies in order.
  void append(const std::vector<std::string>& args);
  engine::Status flush();
  // The next reply, waiting for it (an error reply is returned as a reply, not an Error).
  engine::Result<RedisReply> read_reply();
  // The next reply already received, without waiting.
  std::optional<RedisReply> buffered_reply();
  // After a failed read: whether the server closed the connection (the stream ended cleanly).
  bool closed_by_server() const;
  // Wakes a read blocked in another thread (it then fails); any thread.
  void shutdown();

 private:
  explicit RedisConnection(redisContext* c) : c_(c) {}
  engine::Error failure(std::string_view what) const;
  redisContext* c_;
};

}  // namespace buzz::migrate
