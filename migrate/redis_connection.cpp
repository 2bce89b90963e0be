// RedisConnection over hiredis's blocking API; see redis_connection.h.
#include "migrate/redis_connection.h"

#include <hiredis/hiredis.h>
#include <sys/socket.h>

#include <charconv>

namespace buzz::migrate {
namespace {

RedisReply copy_reply(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_STRING: out.type = RedisReply::Type::kString; break;
    case REDIS_REPLY_STATUS: out.type = RedisReply::Type::kStatus; break;
    case REDIS_REPLY_ERROR: out.type = RedisReply::Type::kError; break;
    case REDIS_REPLY_INTEGER: out.type = RedisReply::Type::kInteger; break;
    case REDIS_REPLY_ARRAY: out.type = RedisReply::Type::kArray; break;
    default: out.type = RedisReply::Type::kNil; break;
  }
  if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_ERROR) {
    out.str.assign(r->str, r->len);
  }
  out.integer = r->integer;
  for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; ++i) out.elements.push_back(copy_reply(r->element[i]));
  return out;
}

RedisReply take_reply(void* raw) {
  auto* r = static_cast<redisReply*>(raw);
  RedisReply out = copy_reply(r);
  freeReplyObject(r);
  return out;
}

timeval to_timeval(std::chrono::milliseconds ms) {
  return timeval{time_t(ms.count() / 1000), suseconds_t(ms.count() % 1000 * 1000)};
}

}  // namespace

engine::Result<RedisUrl> parse_redis_url(std::string_view url) {
  RedisUrl out;
  constexpr std::string_view kScheme = "redis://";
  if (!url.starts_with(kScheme)) {
    return engine::Error{"'" + std::string(url) + "' is not a Redis URL (expected redis://[:password@]host[:port][/db])"};
  }
  std::string_view rest = url.substr(kScheme.size());
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view auth = rest.substr(0, at);
    rest = rest.substr(at + 1);
    size_t colon = auth.find(':');
    out.user = std::string(auth.substr(0, colon));
    if (colon != std::string_view::npos) out.password = std::string(auth.substr(colon + 1));
  }
  std::string_view db;
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    db = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  std::string_view port;
  if (size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
    port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  if (!rest.empty()) out.host = std::string(rest);
  auto number = [&](std::string_view text, long max, long* value) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
    return ec == std::errc() && end == text.data() + text.size() && *value >= 0 && *value <= max;
  };
  long value = 0;
  if (!port.empty()) {
    if (!number(port, 65535, &value) || value == 0) return engine::Error{"Redis URL: bad port '" + std::string(port) + "'"};
    out.port = uint16_t(value);
  }
  if (!db.empty()) {
    if (!number(db, 1 << 20, &value)) return engine::Error{"Redis URL: bad database number '" + std::string(db) + "'"};
    out.db = int(value);
  }
  return out;
}

engine::Result<std::unique_ptr<RedisConnection>> RedisConnection::connect(const RedisUrl& url,
                                                                          std::chrono::milliseconds timeout,
                                                                          bool io_timeout) {
  const std::string where = url.host + ":" + std::to_string(url.port);
  redisContext* c = redisConnectWithTimeout(url.host.c_str(), url.port, to_timeval(timeout));
  if (!c) return engine::Error{"Redis at " + where + ": out of memory"};
  std::unique_ptr<RedisConnection> conn(new RedisConnection(c));
  if (c->err) return engine::Error{"Redis at " + where + ": " + c->errstr};
  redisSetTimeout(c, to_timeval(io_timeout ? timeout : std::chrono::milliseconds(0)));  // 0: no timeout
  redisEnableKeepAlive(c);
  if (!url.password.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!url.user.empty()) auth.push_back(url.user);
    auth.push_back(url.password);
    if (auto r = conn->command(auth); !r) return engine::Error{"Redis at " + where + ": AUTH failed: " + r.error()};
  }
  if (url.db != 0) {
    if (auto r = conn->command({"SELECT", std::to_string(url.db)}); !r) {
      return engine::Error{"Redis at " + where + ": SELECT " + std::to_string(url.db) + " failed: " + r.error()};
    }
  }
  return conn;
}

RedisConnection::~RedisConnection() { redisFree(c_); }

engine::Error RedisConnection::failure(std::string_view what) const {
  return engine::Error{std::string(what) + ": " + (c_->err ? c_->errstr : "connection lost")};
}

engine::Result<RedisReply> RedisConnection::command(const std::vector<std::string>& args) {
  append(args);
  if (auto s = flush(); !s) return engine::Error{s.error()};
  auto reply = read_reply();
  if (reply && reply->type == RedisReply::Type::kError) return engine::Error{reply->str};
  return reply;
}

void RedisConnection::append(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  redisAppendCommandArgv(c_, int(argv.size()), argv.data(), lens.data());
}

engine::Status RedisConnection::flush() {
  int done = 0;
  while (!done) {
    if (redisBufferWrite(c_, &done) != REDIS_OK) return failure("Redis write");
  }
  return {};
}

engine::Result<RedisReply> RedisConnection::read_reply() {
  void* raw = nullptr;
  if (redisGetReply(c_, &raw) != REDIS_OK || !raw) return failure("Redis read");
  return take_reply(raw);
}

std::optional<RedisReply> RedisConnection::buffered_reply() {
  void* raw = nullptr;
  if (redisGetReplyFromReader(c_, &raw) != REDIS_OK || !raw) return std::nullopt;
  return take_reply(raw);
}

bool RedisConnection::closed_by_server() const { return c_->err == REDIS_ERR_EOF; }

void RedisConnection::shutdown() { ::shutdown(c_->fd, SHUT_RDWR); }

}  // namespace buzz::migrate
