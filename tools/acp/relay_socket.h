// The harness's WebSocket to the relay: connect (10 s) and NIP-42 (5 s for
// the challenge, 5 s for the OK; docs/reference/agents-and-cli.md §A.4.1). The AUTH event
// carries ["relay", <url as configured>], ["challenge", …] and, when there
// is one, ["auth_token", <token>].
#pragma once

#include <memory>
#include <string>

#include "engine/signature.h"
#include "tools/client/ws_client.h"

namespace buzz::acp {

std::unique_ptr<client::WsClient> connect_relay(const std::string& relay_url, const engine::Keypair& key,
                                                const std::string& token, std::string* error);

}  // namespace buzz::acp
