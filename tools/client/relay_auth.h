// How a client proves to a relay whose key it holds: the NIP-42 AUTH event on
// the WebSocket (docs/reference/protocol.md §6.2, §6.5) and the NIP-98
// Authorization header on HTTP (docs/reference/rest-api.md §1.3). Used by every
// tool that connects (load, acp, sync, proxy, cli) and by the end-to-end tests.
#pragma once

#include <cstdint>
#include <string>

#include "engine/clock.h"
#include "engine/event.h"
#include "engine/signature.h"

namespace buzz::client {

// The kind 22242 answer to `challenge`: ["relay", relay_url], ["challenge", c],
// and ["auth_token", token] when a token is given; content "".
engine::Event auth_event(const engine::Keypair& key, const std::string& relay_url, const std::string& challenge,
                         const std::string& token = {}, uint64_t created_at = engine::unix_now());

// `Nostr <base64 of a kind 27235>` for one request, created now: ["u", url],
// ["method", method], ["payload", the body's SHA-256] and ["nonce", 16 random
// hex digits], which keeps two identical requests within a second from signing
// the same event (the relay's replay cache would refuse the second).
std::string nip98_authorization(const engine::Keypair& key, const std::string& url, const std::string& method,
                                const std::string& body);

}  // namespace buzz::client
