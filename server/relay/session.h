// Session: what the relay knows about one WebSocket connection.
//
// Owned by the connection (net::ConnectionContext) and touched only on the
// connection's loop thread. Kept small: an idle authenticated session holds no
// heap memory beyond its subscriptions.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/api_tokens.h"
#include "engine/hex.h"
#include "index/subscription_index.h"
#include "net/connection.h"
#include "server/access/grant.h"
#include "server/common/socket_context.h"
#include "server/pipeline/throttle.h"
#include "server/relay/neg_session.h"

namespace buzz::server {

inline constexpr size_t kMaxSubscriptionsPerConnection = 1024;
// Filter values (Filter::value_count) held by one connection's live
// subscriptions. 1,024 subscriptions of 64 KiB filters each held about 360 MB
// per connection; this keeps one connection under a megabyte while leaving
// room for a thousand channel subscriptions or a follow list of thousands.
inline constexpr size_t kMaxFilterValuesPerConnection = 20000;

// What the relay holds a WebSocket session to around its AUTH (docs/limits.md, "Connections").
struct SessionLimits {
  // On a closed relay, a session not authenticated within this is closed
  // (1008); 0 = never. An open relay serves readers without AUTH: no deadline.
  int64_t auth_timeout_ms = 10'000;
  // Authenticated sessions one pubkey may hold across the loops; an AUTH past
  // it is refused and its connection closed. 0 = no cap.
  uint32_t max_per_pubkey = 32;
  // The largest message acted on (NIP-11 max_message_length). A bigger one is
  // read only from an authenticated connection, only to be refused in words
  // (net::LoopOptions::max_read_bytes, docs/limits.md).
  size_t max_message_bytes = 131072;
};

// What a subscription's filters cost against kMaxFilterValuesPerConnection.
inline size_t filter_values(const std::vector<engine::Filter>& filters) {
  size_t n = 0;
  for (const engine::Filter& f : filters) n += f.value_count();
  return n;
}

// A subscription names its connection by slot and generation (the loop is implied).
inline uint64_t subscription_owner(net::ConnId id) { return uint64_t(id.slot) << 32 | id.gen; }
inline net::ConnId subscription_conn(uint16_t loop, uint64_t owner) {
  return {loop, uint32_t(owner >> 32), uint32_t(owner)};
}

struct Session final : SocketContext {
  enum class Auth : uint8_t { kPending, kAuthenticated, kFailed };

  Session() : SocketContext(Owner::kRelay) {}

  std::array<uint8_t, 32> challenge{};
  Auth auth = Auth::kPending;
  engine::Pubkey pubkey{};
  Grant grant;  // every scope, unless the AUTH carried an API token
  // Why the session may go on (docs/access.md): the token it authenticated
  // with, whose revocation closes it; the member whose attestation let this
  // agent in (NIP-OA), whose removal closes it.
  std::optional<engine::TokenHash> token;
  std::optional<engine::Pubkey> owner;
  std::unordered_map<std::string, std::unique_ptr<index::Subscription>> subs;
  size_t held_filter_values = 0;  // by subs, at most kMaxFilterValuesPerConnection
  // Open NIP-77 reconciliations by sub_id, at most NegLimits::sessions_per_connection.
  std::unordered_map<std::string, std::unique_ptr<NegSession>> negs;
  // The human frame limits (docs/reference/protocol.md §14, server/pipeline/throttle.h).
  FrameBucket writes;  // EVENT frames
  FrameBucket reads;   // REQ, COUNT and NEG frames, priced by cost

  bool authenticated() const { return auth == Auth::kAuthenticated; }
  std::string challenge_hex() const { return engine::to_hex(challenge); }
};

}  // namespace buzz::server
