// NIP-40 expiration: the `expiration` tag of an event, and when a stored event
// counts as expired (docs/reference/kinds.md, docs/storage.md "Expiration").
//
// An event whose expiration is at or before now is expired: refused at ingest,
// hidden from every read, and erased by the store writer's reaper.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/event.h"

namespace buzz::engine {

// A stored event without an expiration tag: it never expires.
inline constexpr uint64_t kNeverExpires = UINT64_MAX;

// The Unix time of the event's first `expiration` tag; nullopt when it has
// none, or when its value is not a decimal number of seconds (ingest refuses
// such an event rather than keep it for ever; a stored one never expires).
std::optional<uint64_t> expiration_of(const Event& e);

inline bool has_expired(uint64_t expires_at, uint64_t now) { return expires_at <= now; }

}  // namespace buzz::engine
