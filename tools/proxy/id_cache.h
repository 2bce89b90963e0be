// The proxy's id-mapping caches (docs/reference/proxy.md §8): internal id → external id,
// external id → internal id, internal id → channel UUID. Each holds at most
// 100,000 entries, and an entry unused for an hour expires. Reactions, replies
// and edits need their target here, so a client must have seen a message
// through the proxy before it can point at it.
// Loop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>

namespace buzz::proxy {

// A map whose entries expire after `ttl` without use; the least recently used
// entry makes room when it is full.
class TtlCache {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TtlCache(size_t capacity = 100000, Clock::duration ttl = std::chrono::hours(1))
      : capacity_(capacity), ttl_(ttl) {}

  void put(const std::string& key, std::string value, Clock::time_point now = Clock::now());
  // The value, refreshed as used; nullopt if absent or expired.
  std::optional<std::string> get(const std::string& key, Clock::time_point now = Clock::now());
  size_t size() const { return map_.size(); }

 private:
  struct Entry {
    std::string value;
    Clock::time_point used;
    std::list<std::string>::iterator order;
  };
  void expire(Clock::time_point now);

  size_t capacity_;
  Clock::duration ttl_;
  std::list<std::string> order_;  // most recently used first
  std::unordered_map<std::string, Entry> map_;
};

// The three caches, filled by every translation in either direction.
struct IdCaches {
  TtlCache internal_to_external, external_to_internal, internal_to_channel;

  // One translated event: its id on each side and its channel.
  void remember(const std::string& internal_id, const std::string& external_id, const std::string& channel) {
    internal_to_external.put(internal_id, external_id);
    external_to_internal.put(external_id, internal_id);
    internal_to_channel.put(internal_id, channel);
  }
};

}  // namespace buzz::proxy
