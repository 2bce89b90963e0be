// RedisPresenceStore: presence shared by every relay node through Redis
// (docs/reference/compat-backends.md §3.1): a status is `SET buzz:presence:{hex} <status> EX 90`,
// "offline" and the last connection closing are `DEL`, a read is `GET` (a
// missing key is offline). Typing stays in memory, as upstream's typing sets are
// dead code and 20002 events reach the other nodes through pub/sub anyway.
//
// It wraps the node's in-memory store: writes go to both (the local copy keeps
// the offline announcements of statuses set on this node when they expire), reads
// ask Redis. A read is one GET through the node's command queue (after this
// node's own writes), waited for at most 100 ms; when Redis does not answer in
// time, the local copy answers instead.
//
// Threads: any thread. Writes queue and return; a read waits for Redis (REST only).
#pragma once

#include <string>

#include "engine/presence_store.h"
#include "migrate/redis_command_queue.h"

namespace buzz::migrate {

class RedisPresenceStore final : public engine::PresenceStore {
 public:
  RedisPresenceStore(RedisCommandQueue& commands, engine::PresenceStore& local);

  void set_status(const engine::Pubkey& pk, std::string_view status, uint64_t now) override;
  bool clear(const engine::Pubkey& pk, uint64_t now) override;
  std::optional<std::string> status(const engine::Pubkey& pk, uint64_t now) const override;
  std::vector<engine::Pubkey> expire(uint64_t now) override;
  // Guest channels stay in each node's memory: a guest's 20001 carries them to every node.
  void set_guest_channels(const engine::Pubkey& pk, std::vector<std::string> channels, uint64_t now) override;
  std::vector<std::string> guest_channels(const engine::Pubkey& pk, uint64_t now) const override;
  void set_typing(std::string_view channel, const engine::Pubkey& pk, uint64_t now) override;
  std::vector<engine::Pubkey> typing(std::string_view channel, uint64_t now) const override;

  static std::string key_of(const engine::Pubkey& pk);

 private:
  RedisCommandQueue& commands_;
  engine::PresenceStore& local_;
};

}  // namespace buzz::migrate
