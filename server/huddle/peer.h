// One huddle socket's state (a net::ConnectionContext owned by the
// connection, touched only on its loop): where it is in the handshake, and
// once admitted, its room, index and protocol version.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "engine/hex.h"
#include "server/huddle/huddle.h"
#include "server/huddle/recorder.h"

namespace buzz::server::huddle {

struct Huddle::Peer final : SocketContext {
  enum class Stage : uint8_t {
    kChallenged,  // waiting for the auth message (at most kAuthTimeoutMs)
    kAdmitting,   // authenticated; waiting for the store writer to add it to the channel
    kIn,          // admitted: its frames are forwarded
    kOut,         // refused, or gone from the room
  };
  Peer() : SocketContext(Owner::kHuddle) {}

  Stage stage = Stage::kChallenged;
  net::ConnId conn;
  std::array<uint8_t, 32> challenge{};
  std::string channel;  // the huddle channel named by the URL
  engine::Pubkey pubkey{};
  std::optional<engine::Pubkey> owner;  // the member whose attestation let this agent in (NIP-OA)
  int64_t version = 1;  // as requested; equal to the room's pin once admitted
  std::string parent;   // P of §8.1: where this peer's lifecycle events go
  std::shared_ptr<Room> room;
  uint8_t index = 0;
  // Set on this peer's loop once it has been told (docs/reference/huddle.md §11.1): only
  // then are its frames kept.
  std::shared_ptr<Recording> recording;  // the room's recording
  std::shared_ptr<Recording> track;      // its own track, published live (§11.3)
};

}  // namespace buzz::server::huddle
