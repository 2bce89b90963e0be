// NIP-98 HTTP auth (kind 27235, rest-api.md §1.3): the `Authorization: Nostr
// <base64 event>` header that signs one HTTP request. Verification follows the
// spec's order; a failure names the reason (logged, and sent where the
// endpoint's contract allows it).
//
// The expected URL comes from configuration (RELAY_URL with ws→http,
// wss→https), never from request headers, which an attacker controls.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "engine/hex.h"
#include "engine/result.h"

namespace buzz::server {

inline constexpr uint16_t kNip98Kind = 27235;
inline constexpr int64_t kNip98MaxSkewSecs = 60;

struct Nip98Request {
  std::string_view authorization;  // the whole header value
  std::string_view method;         // GET, POST, …
  std::string_view path;           // path and query, as requested
  std::string_view body;
  bool payload_required = false;   // POST /api/tokens demands a payload tag
};

// The http(s) base URL requests are signed against: RELAY_URL with its scheme
// mapped and trailing slashes trimmed.
std::string nip98_base_url(std::string_view relay_url);

struct Nip98Signer {
  engine::Pubkey pubkey;
  engine::Id event_id;  // for the replay cache
};

// Who signed this request, or the reason the header does not authenticate it.
engine::Result<Nip98Signer> verify_nip98(const Nip98Request& request, std::string_view base_url, uint64_t now);

// Each accepted NIP-98 event may be used once within its 120 s window
// (rest-api.md §1.3): remembers up to 10,000 ids. Any thread.
class Nip98ReplayCache {
 public:
  // True the first time an id is seen (and remembers it); false on a replay.
  bool first_use(const engine::Id& id, uint64_t now);

 private:
  static constexpr uint64_t kWindowSecs = 120;
  static constexpr size_t kCapacity = 10000;
  std::mutex mu_;
  std::deque<std::pair<uint64_t, engine::Id>> order_;  // oldest first
  std::unordered_set<engine::Id, engine::KeyBytesHash> seen_;
};

}  // namespace buzz::server
