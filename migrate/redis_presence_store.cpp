// RedisPresenceStore; see redis_presence_store.h.
#include "migrate/redis_presence_store.h"

#include <future>

namespace buzz::migrate {
namespace {

// A presence read answers a REST call on a loop thread: it may not wait long.
constexpr std::chrono::milliseconds kReadTimeout{100};

}  // namespace

RedisPresenceStore::RedisPresenceStore(RedisCommandQueue& commands, engine::PresenceStore& local)
    : commands_(commands), local_(local) {}

std::string RedisPresenceStore::key_of(const engine::Pubkey& pk) { return "buzz:presence:" + engine::to_hex(pk); }

void RedisPresenceStore::set_status(const engine::Pubkey& pk, std::string_view status, uint64_t now) {
  local_.set_status(pk, status, now);
  if (status == "offline") {
    (void)commands_.submit({"DEL", key_of(pk)});
  } else {
    (void)commands_.submit({"SET", key_of(pk), std::string(status), "EX", std::to_string(engine::kPresenceTtlSecs)});
  }
}

bool RedisPresenceStore::clear(const engine::Pubkey& pk, uint64_t now) {
  // HEAD: the last connection on a node closing clears the status — here only a
  // status this node set, so closing on one node does not wipe one set through another.
  const bool held = local_.clear(pk, now);
  if (held) (void)commands_.submit({"DEL", key_of(pk)});
  return held;
}

std::optional<std::string> RedisPresenceStore::status(const engine::Pubkey& pk, uint64_t now) const {
  struct Read {
    bool answered = false;  // false: Redis failed the read
    std::optional<std::string> status;
  };
  // Through the same queue as the writes, so a read follows this node's own last write.
  auto answer = std::make_shared<std::promise<Read>>();
  std::future<Read> got = answer->get_future();
  const bool queued = commands_.submit({"GET", key_of(pk)}, [answer](const engine::Result<RedisReply>& r) {
    if (!r || r->type == RedisReply::Type::kError) return answer->set_value(Read{});
    answer->set_value(Read{true, r->type == RedisReply::Type::kString ? std::optional(r->str) : std::nullopt});
  });
  if (queued && got.wait_for(kReadTimeout) == std::future_status::ready) {
    Read read = got.get();
    if (read.answered) return read.status;  // no key: offline
  }
  return local_.status(pk, now);  // Redis is away or slow: this node's own view
}

std::vector<engine::Pubkey> RedisPresenceStore::expire(uint64_t now) { return local_.expire(now); }

void RedisPresenceStore::set_guest_channels(const engine::Pubkey& pk, std::vector<std::string> channels,
                                            uint64_t now) {
  local_.set_guest_channels(pk, std::move(channels), now);
}

std::vector<std::string> RedisPresenceStore::guest_channels(const engine::Pubkey& pk, uint64_t now) const {
  return local_.guest_channels(pk, now);
}

void RedisPresenceStore::set_typing(std::string_view channel, const engine::Pubkey& pk, uint64_t now) {
  local_.set_typing(channel, pk, now);
}

std::vector<engine::Pubkey> RedisPresenceStore::typing(std::string_view channel, uint64_t now) const {
  return local_.typing(channel, now);
}

}  // namespace buzz::migrate
