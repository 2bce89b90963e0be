// connect_relay; see relay_socket.h.
#include "tools/acp/relay_socket.h"

#include <simdjson.h>

#include "engine/clock.h"
#include "tools/client/relay_auth.h"
#include "tools/sync/relay_link.h"

namespace buzz::acp {

std::unique_ptr<client::WsClient> connect_relay(const std::string& relay_url, const engine::Keypair& key,
                                                const std::string& token, std::string* error) {
  auto addr = sync::parse_relay_url(relay_url);
  if (!addr) {
    *error = addr.error();
    return nullptr;
  }
  auto ws = client::WsClient::connect(addr->host, addr->port, error, addr->path, 10000);
  if (!ws) return nullptr;
  simdjson::dom::parser parser;
  // The challenge: the first AUTH within 5 s (anything before it is not for us yet).
  const auto deadline = engine::unix_now_ms() + 5000;
  std::string challenge;
  while (challenge.empty()) {
    const int64_t left = int64_t(deadline) - int64_t(engine::unix_now_ms());
    auto msg = left > 0 ? ws->recv(int(left)) : std::nullopt;
    if (!msg) {
      *error = ws->closed() ? "the relay closed the connection before AUTH" : "no NIP-42 challenge within 5 s";
      return nullptr;
    }
    simdjson::dom::array arr;
    std::string_view verb, text;
    if (parser.parse(*msg).get(arr) || arr.size() < 2 || arr.at(0).get(verb) || verb != "AUTH" || arr.at(1).get(text)) continue;
    challenge = std::string(text);
  }
  const engine::Event auth = client::auth_event(key, relay_url, challenge, token);
  ws->send_text("[\"AUTH\"," + auth.raw + "]");
  const std::string id = auth.id_hex();
  const auto ok_deadline = engine::unix_now_ms() + 5000;
  for (;;) {
    const int64_t left = int64_t(ok_deadline) - int64_t(engine::unix_now_ms());
    auto msg = left > 0 ? ws->recv(int(left)) : std::nullopt;
    if (!msg) {
      *error = ws->closed() ? "the relay closed the connection during AUTH" : "no answer to AUTH within 5 s";
      return nullptr;
    }
    simdjson::dom::array arr;
    std::string_view verb, got_id, reason;
    bool accepted = false;
    if (parser.parse(*msg).get(arr) || arr.size() < 3 || arr.at(0).get(verb) || verb != "OK" || arr.at(1).get(got_id) ||
        got_id != id || arr.at(2).get(accepted)) {
      continue;
    }
    if (!accepted) {
      if (arr.size() > 3 && !arr.at(3).get(reason)) *error = "AUTH refused: " + std::string(reason);
      else *error = "AUTH refused";
      return nullptr;
    }
    return ws;
  }
}

}  // namespace buzz::acp
