// Session: what the relay knows about one WebSocket connection.
//
// Owned by the connection (net::ConnectionContext) and touched only on the
// connection's loop thread. Kept small: an idle authenticated session holds no
// heap memory beyond its subscriptions.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <unordered_map>

#include "engine/hex.h"
#include "index/subscription_index.h"
#include "net/connection.h"
#include "server/grant.h"

namespace buzz::server {

inline constexpr size_t kMaxSubscriptionsPerConnection = 1024;

// A subscription names its connection by slot and generation (the loop is implied).
inline uint64_t subscription_owner(net::ConnId id) { return uint64_t(id.slot) << 32 | id.gen; }
inline net::ConnId subscription_conn(uint16_t loop, uint64_t owner) {
  return {loop, uint32_t(owner >> 32), uint32_t(owner)};
}

struct Session final : net::ConnectionContext {
  enum class Auth : uint8_t { kPending, kAuthenticated, kFailed };

  std::array<uint8_t, 32> challenge{};
  Auth auth = Auth::kPending;
  engine::Pubkey pubkey{};
  Grant grant;  // every scope, unless the AUTH carried an API token
  std::unordered_map<std::string, std::unique_ptr<index::Subscription>> subs;

  bool authenticated() const { return auth == Auth::kAuthenticated; }
  std::string challenge_hex() const { return engine::to_hex(challenge); }
};

}  // namespace buzz::server
