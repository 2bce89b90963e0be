// The NIP-42 AUTH event check (docs/reference/protocol.md §6.2), shared by the relay's
// sessions and the huddles' audio sockets (docs/reference/huddle.md §3.1): kind 22242, a
// valid id and signature, the connection's challenge, the relay's own URL
// (normalized) and a created_at within 60 s of now. Any thread.
#pragma once

#include <string_view>

#include "engine/event.h"

namespace buzz::server {

// `relay_url_normalized` is normalize_relay_url(RELAY_URL).
bool nip42_auth_valid(const engine::Event& e, std::string_view challenge_hex, std::string_view relay_url_normalized);

}  // namespace buzz::server
