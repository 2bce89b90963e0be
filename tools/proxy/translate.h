// Event translation between a NIP-28 client and the relay (docs/reference/proxy.md §5.2–5.3).
//
// Inbound (client → relay): kinds 42 and 1 become 9, 41 becomes 40003, 7
// stays 7; the channel's `e` (its kind 40 id) becomes `["h", uuid]`, the other
// event ids are mapped to the relay's, and the event is re-signed with the
// shadow key of the client's pubkey.
// Outbound (relay → client): 9 and 40002 become 42, 40003 becomes 41, 7 and 5
// pass; `h` becomes `["e", kind40_id]` first, ids are mapped back, and the
// event is re-signed with the shadow key of its effective author.
// Every translation fills the id caches. Nothing here does I/O: a reaction
// whose target the caches do not know comes back as ids to fetch.
// Loop thread only.
#pragma once

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"
#include "tools/proxy/channel_map.h"
#include "tools/proxy/id_cache.h"
#include "tools/proxy/shadow_keys.h"

namespace buzz::proxy {

using ChannelSet = std::unordered_set<std::string>;  // channel UUIDs

struct Translator {
  const ChannelMap& channels;
  IdCaches& ids;
  ShadowKeys& shadows;
  engine::Pubkey relay_pubkey{};

  // Inbound. The error is the OK reason the client gets, "error: …" (§9).
  engine::Result<engine::Event> inbound(const engine::Event& e, const ChannelSet& allowed);

  // Outbound: the translated event and its channel, or why nothing is sent.
  struct Outbound {
    std::optional<engine::Event> event;
    std::string channel;
    std::vector<std::string> missing;  // target ids to fetch (GET /api/events/{id}), then translate again
  };
  // Does not check the reader's channels: the caller does, so one translation
  // serves every session that may see the channel.
  Outbound outbound(const engine::Event& e);

 private:
  engine::Result<engine::Event> inbound_message(const engine::Event& e, const ChannelSet& allowed);
  engine::Result<engine::Event> inbound_target(const engine::Event& e, const ChannelSet& allowed);
  Outbound outbound_message(const engine::Event& e);
  Outbound outbound_target(const engine::Event& e);
  // Signs `out` with the shadow key of e's effective internal author (§7.3);
  // false if that key cannot be derived.
  bool sign_as_author(const engine::Event& e, engine::Event* out);
};

}  // namespace buzz::proxy
