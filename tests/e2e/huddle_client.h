// A huddle audio socket for the end-to-end tests (docs/reference/huddle.md): the
// upgrade at /huddle/{channel}/audio, the challenge, the auth message, and
// the text and binary messages that follow. Messages read while waiting for
// another are kept in order. Not thread-safe: one client per thread.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/signature.h"
#include "tests/e2e/relay_process.h"
#include "tools/client/ws_client.h"

namespace buzz::test {

struct HuddleMessage {
  bool binary = false;
  std::string data;
};

// What an auth message carries; unset fields are left out of the JSON.
struct HuddleAuth {
  std::optional<std::string> parent;
  std::optional<int> version = 2;
  std::optional<uint64_t> created_at;      // default: now
  std::optional<std::string> challenge;    // default: this socket's
  std::optional<std::string> relay_url;    // default: the relay's
};

class HuddleClient {
 public:
  // Connects and reads the challenge; nullptr + *error on failure.
  static std::unique_ptr<HuddleClient> connect(const RelayProcess& relay, const std::string& channel,
                                               std::string* error);

  const std::string& challenge() const { return challenge_; }
  client::WsClient& ws() { return *ws_; }

  bool send_auth(const engine::Keypair& key, const HuddleAuth& auth = {});
  bool send_text(const std::string& text) { return ws_->send_text(text); }
  bool send_frame(const std::string& bytes) { return ws_->send_frame(net::ws::Opcode::kBinary, bytes); }

  // The next message (kept ones first), or nullopt on timeout or close.
  std::optional<HuddleMessage> next(int timeout_ms = 5000);
  // The first text message whose "type" is `type`; others read meanwhile are kept.
  std::optional<std::string> wait_type(const std::string& type, int timeout_ms = 5000);
  // The first binary message; text read meanwhile is kept.
  std::optional<std::string> wait_binary(int timeout_ms = 5000);
  // The relay's answer to auth: the "joined" naming this socket's pubkey or an "error".
  std::optional<std::string> admission(const std::string& pubkey_hex, int timeout_ms = 5000);
  // Drops everything kept.
  void forget() { kept_.clear(); }

 private:
  HuddleClient() = default;
  std::optional<HuddleMessage> read_one(int timeout_ms);

  std::unique_ptr<client::WsClient> ws_;
  std::string challenge_;
  std::string relay_url_;
  std::deque<HuddleMessage> kept_;
};

// A string or integer field of a JSON object's text ("" if absent).
std::string json_field(const std::string& json, const char* key);

// A v2 frame: the 8-byte header then the Opus packet.
std::string v2_frame(uint16_t seq, uint32_t ts_48k, int8_t level_dbov, uint8_t flags, const std::string& opus);

}  // namespace buzz::test
