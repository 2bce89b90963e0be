// What every buzz-load scenario says to the relay: an authenticated
// connection (NIP-42), and a signed event.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "tools/client/ws_client.h"
#include "tools/load/server_process.h"

namespace buzz::load {

// Connects and answers the AUTH challenge; throws std::runtime_error if the relay refuses.
std::unique_ptr<client::WsClient> connect_authed(const ServerProcess& server, const engine::Keypair& key);
// A signed event of `kind` (a kind-1 note unless told), created now.
engine::Event note(const engine::Keypair& key, std::string content, std::vector<engine::Tag> tags = {},
                   uint16_t kind = 1);

}  // namespace buzz::load
