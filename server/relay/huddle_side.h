// HuddleSide: the huddles' half of the relay's port (spec/huddle.md). The
// relay owns the connections; the WebSocket upgrades at /huddle/… and
// everything that then arrives on those sockets go to the HuddleSide
// (server/huddle/ implements it), as plain HTTP goes to the HttpSide.
//
// Loop thread, every call: the connection's own loop.
#pragma once

#include <string_view>
#include <vector>

#include "engine/hex.h"
#include "net/loop.h"
#include "net/service.h"

namespace buzz::server {

struct Revocation;  // server/team/team_model.h

// What a WebSocket's context is, so the relay hands each socket's messages to
// the room that opened it: its own sessions (Session), or a huddle's peers.
struct SocketContext : net::ConnectionContext {
  enum class Owner : uint8_t { kRelay, kHuddle };
  explicit SocketContext(Owner o) : owner(o) {}
  const Owner owner;
};

class HuddleSide {
 public:
  // The path prefix of the upgrades a HuddleSide takes.
  static constexpr std::string_view kPathPrefix = "/huddle/";

  virtual ~HuddleSide() = default;
  // An upgrade whose path starts with kPathPrefix: false with `refusal` filled to refuse it.
  virtual bool on_upgrade(net::Loop& loop, const net::HttpRequest& request, net::HttpResponse* refusal) = 0;
  // Must set a context whose owner is kHuddle on `conn`.
  virtual void on_open(net::Loop& loop, net::Connection& conn, const net::HttpRequest& upgrade) = 0;
  virtual void on_message(net::Loop& loop, net::Connection& conn, std::string_view text) = 0;
  virtual void on_binary(net::Loop& loop, net::Connection& conn, std::string_view bytes) = 0;
  virtual void on_close(net::Loop& loop, net::Connection& conn) = 0;
  // Once a second on every loop.
  virtual void on_tick(net::Loop& loop) = 0;
  // On every loop, after a write batch that took rights away: channel
  // memberships that ended (`channels`) and relay members removed on a closed
  // relay (`members`). Peers here who may no longer be in their room are
  // dropped from it (docs/access.md).
  virtual void on_rights_lost(net::Loop& loop, const std::vector<Revocation>& channels,
                              const std::vector<engine::Pubkey>& members) = 0;
};

}  // namespace buzz::server
