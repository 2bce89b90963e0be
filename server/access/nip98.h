// NIP-98 HTTP auth (kind 27235, docs/reference/rest-api.md §1.3): the `Authorization: Nostr
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
#include "engine/kind_numbers.h"
#include "engine/result.h"

namespace buzz::server {

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
  uint64_t created_at = 0;
};

// Who signed this request, or the reason the header does not authenticate it.
engine::Result<Nip98Signer> verify_nip98(const Nip98Request& request, std::string_view base_url, uint64_t now);

// Each accepted NIP-98 event may be used once (docs/reference/rest-api.md §1.3). An id is
// kept for as long as its event can still verify, until created_at + 60 s,
// so a header dated up to 60 s ahead is refused for its whole 120 s window.
// Never forgets a live id: with 10,000 live ids held, a new one is refused
// until the oldest expire (kFull). Any thread.
class Nip98ReplayCache {
 public:
  enum class Use : uint8_t { kFirst, kReplay, kFull };
  // kFirst the first time an id is seen (and remembers it), kReplay after.
  Use first_use(const Nip98Signer& signer, uint64_t now);

  static constexpr size_t kCapacity = 10000;

 private:
  std::mutex mu_;
  // In order of first use, each with the last second its event verifies in.
  // Every entry leaves within 120 s of its first use, whatever its neighbours.
  std::deque<std::pair<uint64_t, engine::Id>> order_;
  std::unordered_set<engine::Id, engine::KeyBytesHash> seen_;
};

}  // namespace buzz::server
