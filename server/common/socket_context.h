// SocketContext: what a WebSocket connection's context is, so the front door
// (server/door/) hands each socket's frames to the room that opened it: the
// relay's own sessions, or a huddle's audio peers.
#pragma once

#include <cstdint>

#include "net/connection.h"

namespace buzz::server {

struct SocketContext : net::ConnectionContext {
  enum class Owner : uint8_t { kRelay, kHuddle };
  explicit SocketContext(Owner o) : owner(o) {}
  const Owner owner;
};

}  // namespace buzz::server
