// The channel map (docs/reference/proxy.md §5.4): the team's channels as NIP-28 sees them.
// Each channel gets a kind 40 whose content names its UUID (so its id, the
// NIP-28 channel id, stays the same across restarts and renames) and a kind
// 41 with its display name and description, both signed by the proxy's key
// and never sent upstream. Loaded from the relay's GET /api/channels and
// refreshed while the proxy runs. Loop thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"
#include "engine/signature.h"

namespace buzz::proxy {

struct ChannelInfo {
  std::string uuid;
  uint64_t created_at = 0;  // unix seconds
  std::string name, description;
};

struct NipChannel {
  ChannelInfo info;
  engine::Event create;    // kind 40
  engine::Event metadata;  // kind 41
  std::string id;          // the kind 40's id: the NIP-28 channel id
};

// The rows of GET /api/channels (a bare JSON array).
engine::Result<std::vector<ChannelInfo>> parse_channel_list(std::string_view json);
// "2026-05-01T10:00:00Z", "…+00:00", with optional fractions; nullopt otherwise.
std::optional<uint64_t> parse_rfc3339(std::string_view text);

// The synthesized events for one channel, signed by `key`.
engine::Event channel_create_event(const engine::Keypair& key, const ChannelInfo& c);
engine::Event channel_metadata_event(const engine::Keypair& key, const ChannelInfo& c, const std::string& create_id);

class ChannelMap {
 public:
  explicit ChannelMap(engine::Keypair key) : key_(key) {}

  // Replaces the map with `rows`; a channel whose record is unchanged keeps
  // its signed events. Returns how many channels are new or changed.
  size_t update(const std::vector<ChannelInfo>& rows);

  const NipChannel* by_uuid(std::string_view uuid) const;
  // The channel whose kind 40 has this id.
  const NipChannel* by_create_id(std::string_view id) const;
  const std::unordered_map<std::string, NipChannel>& all() const { return channels_; }

 private:
  engine::Keypair key_;
  std::unordered_map<std::string, NipChannel> channels_;  // by UUID
  std::unordered_map<std::string, std::string> by_id_;    // kind 40 id → UUID
};

}  // namespace buzz::proxy
