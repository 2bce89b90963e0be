// What every buzz-load scenario says to the relay: an authenticated
// connection (NIP-42), a signed event, a minted token, a history query.
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
// The i-th channel id of this load run: a UUID holding the process id and i.
std::string channel_uuid(int i);
// A bearer token minted over REST with NIP-98 (POST /api/tokens) holding one
// scope: "Bearer buzz_…". Throws std::runtime_error if the relay refuses.
std::string mint_bearer(const ServerProcess& server, const engine::Keypair& key, const std::string& scope);
// Sends frames on one connection, at most `window` unanswered, and waits for
// every OK; throws std::runtime_error on a refusal or a timeout.
void send_all(client::WsClient& c, const std::vector<std::string>& frames, size_t window = 64);
// One REQ answered to its EOSE, then its CLOSE (which the relay answers with
// CLOSED); returns the events it carried, and the time its EOSE came (steady
// clock, seconds) in `eose_at`. Throws std::runtime_error on CLOSED or a timeout.
size_t query(client::WsClient& c, const std::string& filter, double* eose_at = nullptr);
// One unlabelled series' value in a Prometheus text page (GET /metrics), 0 if absent.
double metric_value(const std::string& page, const std::string& name);
// Steady-clock seconds.
double now_s();
// Sleeps until the steady-clock time `due` (seconds): one wake-up per send, not a
// polling loop, so the load's publishers leave the shared cores to the relay.
void sleep_until_s(double due);
// The q-quantile (0..1) of latencies in seconds, sorted, in milliseconds; 0 if none.
double percentile_ms(const std::vector<double>& sorted, double q);

}  // namespace buzz::load
