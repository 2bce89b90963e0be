// A small Nostr test client for the end-to-end tests: one WebSocket to a
// RelayProcess, the NIP-42 handshake, EVENT/REQ/COUNT/CLOSE helpers and a
// parser for relay replies (simdjson). Everything blocks with a timeout.
// Replies read while waiting for something else (an OK for another id, a
// live EVENT, ...) are kept in order and handed out by later calls, so
// out-of-order replies on one connection never get lost.
// Not thread-safe: one client per test thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <utility>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/signature.h"
#include "tests/e2e/relay_process.h"
#include "tools/client/http_client.h"
#include "tools/client/relay_auth.h"
#include "tools/client/ws_client.h"

namespace buzz::test {

inline constexpr int kReplyTimeoutMs = 5000;

// One relay → client message, decoded.
struct RelayMessage {
  std::string type;        // "OK", "EVENT", "EOSE", "CLOSED", "NOTICE", "COUNT", "AUTH"; "" if unparseable
  std::string id;          // OK: event id; EVENT/EOSE/CLOSED/COUNT: sub id
  bool accepted = false;   // OK only
  std::string text;        // OK/CLOSED reason, NOTICE text, AUTH challenge
  engine::Event event;     // EVENT only (parsed, not verified)
  int64_t count = -1;      // COUNT only: the "count" field
  std::string raw;         // the frame as received
};

// The reply to one EVENT or AUTH.
struct OkReply {
  bool received = false;   // false: no OK within the timeout
  bool accepted = false;
  std::string reason;
};

// What a REQ produced before EOSE (or CLOSED, or the timeout).
struct ReqResult {
  std::vector<engine::Event> events;
  bool eose = false;
  std::optional<std::string> closed;  // reason, if the relay sent CLOSED
};

uint64_t unix_now();
// A key's pubkey as lowercase hex.
inline std::string hex(const engine::Keypair& key) { return engine::to_hex(key.pubkey); }

// A signed event; created_at 0 means now.
engine::Event make_event(const engine::Keypair& key, uint16_t kind, std::string content,
                         std::vector<engine::Tag> tags = {}, uint64_t created_at = 0);

// e with one bit of its signature flipped (and its raw JSON to match): the id
// still checks, the Schnorr signature does not.
engine::Event with_bad_signature(engine::Event e);

// A NIP-OA owner attestation tag ["auth", owner, conditions, sig] for agent
// (docs/reference/protocol.md §6.7), and the same as the JSON an X-Auth-Tag header carries.
engine::Tag nip_oa_tag(const engine::Keypair& owner, const engine::Pubkey& agent, const std::string& conditions);
std::string nip_oa_header(const engine::Tag& tag);

// JSON string literal for s (quoted, escaped).
std::string json_quote(std::string_view s);

class NostrClient {
 public:
  // Connects and reads the relay's ["AUTH", challenge] frame.
  static std::unique_ptr<NostrClient> connect(const RelayProcess& relay, std::string* error);
  // connect() then authenticate(); nullptr (and *error) unless the AUTH is accepted.
  static std::unique_ptr<NostrClient> connect_authed(const RelayProcess& relay,
                                                     const engine::Keypair& key, std::string* error);

  const std::string& challenge() const { return challenge_; }
  const std::string& relay_url() const { return relay_url_; }
  client::WsClient& ws() { return *ws_; }

  // Sends a good AUTH for this connection and waits for its OK.
  OkReply authenticate(const engine::Keypair& key);
  // Sends ["AUTH", event] and waits for the OK with the event's id.
  OkReply send_auth(const engine::Event& auth_event);

  // Sends ["EVENT", e.raw] and waits for the OK with e's id.
  OkReply publish(const engine::Event& e, int timeout_ms = kReplyTimeoutMs);
  // Waits for the OK with this id (after sending an EVENT yourself).
  OkReply wait_ok(const std::string& event_id_hex, int timeout_ms = kReplyTimeoutMs);

  // Sends ["REQ", sub_id, filters...] (filters_json is the comma-separated
  // filter objects) and collects events until EOSE or CLOSED.
  ReqResult req(const std::string& sub_id, const std::string& filters_json,
                int timeout_ms = kReplyTimeoutMs);
  // Sends ["COUNT", sub_id, filters...]; the COUNT or CLOSED reply, or nullopt.
  std::optional<RelayMessage> count(const std::string& sub_id, const std::string& filters_json,
                                    int timeout_ms = kReplyTimeoutMs);

  bool send(std::string_view text) { return ws_->send_text(text); }

  // The next relay message (kept ones first); nullopt on timeout or close.
  std::optional<RelayMessage> next_message(int timeout_ms = kReplyTimeoutMs);
  // Reads until the relay closes the socket (no message for timeout_ms ends
  // the wait); its close code, or 0 if it stayed open.
  uint16_t close_code_within(int timeout_ms = kReplyTimeoutMs);
  // The first message matching `want`; the others read meanwhile are kept.
  std::optional<RelayMessage> wait_for(const std::function<bool(const RelayMessage&)>& want,
                                       int timeout_ms = kReplyTimeoutMs);

 private:
  NostrClient() = default;
  std::optional<RelayMessage> read_one(int timeout_ms);

  std::unique_ptr<client::WsClient> ws_;
  std::string challenge_;
  std::string relay_url_;
  std::deque<RelayMessage> kept_;
};

// Parses one relay message; type "" if it is not a JSON array with a string head.
RelayMessage parse_relay_message(std::string raw);

// --- HTTP ---

// One HTTP/1.1 request to 127.0.0.1:port (Connection: close): tools/client/http_client.h.
using client::HttpReply;
using client::http_call;
HttpReply http_get(uint16_t port, const std::string& path, const std::string& accept = "");

// The value of one Prometheus sample in a /metrics body, or -1.
int64_t metric_value(const std::string& body, const std::string& name);

// The relay's own pubkey, from the NIP-11 "self" field ("" if unavailable).
std::string relay_self_pubkey(const RelayProcess& relay);

// An `Authorization` value for NIP-98 (kind 27235): u, method, a nonce and,
// with a body, payload tags. Every call signs a distinct event.
std::string nip98_header(const engine::Keypair& key, const std::string& url, const std::string& method,
                         const std::string& body = "", uint64_t created_at = 0);

}  // namespace buzz::test
