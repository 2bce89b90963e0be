// Session: who the CLI is to the relay for one run, and the requests it makes
// as that identity (§B.1). Auth resolves once, at the start:
//   --token / BUZZ_API_TOKEN          → Authorization: Bearer <token>
//   else --private-key / BUZZ_PRIVATE_KEY → auto-mint a 1-day token (§B.3)
//   else --pubkey / BUZZ_PUBKEY        → X-Pubkey (the original's dev mode)
//   none                               → auth_error
// A private key is kept for signing whatever authenticates the requests.
//
// An auto-minted token serves this run only and is revoked when the session
// ends. The seed left it to expire after a day, but the relay allows a pubkey
// 10 active tokens: an agent on a key alone would be refused from its 11th
// command of the day. (The relay's 50 mints per hour still bound such an
// agent; `export BUZZ_API_TOKEN=$(buzz auth)` is the way past both.)
#pragma once

#include <optional>
#include <string>

#include "engine/event.h"
#include "engine/options.h"
#include "engine/signature.h"
#include "tools/cli/relay_http.h"

namespace buzz::cli {

// The global flags; a flag not given falls back to its environment variable.
struct GlobalOptions {
  std::optional<std::string> relay, token, private_key, pubkey;
};

// Their rows of the option table, read by the agent commands and `buzz mcp`:
// --relay, --token, --private-key and --pubkey, with BUZZ_RELAY_URL,
// BUZZ_API_TOKEN, BUZZ_PRIVATE_KEY and BUZZ_PUBKEY. An empty value leaves one unset.
std::vector<options::Option> global_options(GlobalOptions* g);

// `ws://` → `http://`, `wss://` → `https://`, trailing `/` dropped.
std::string normalize_relay_url(std::string url);

class Session {
 public:
  // authenticate = false: only parse the key (the `auth` command mints by itself).
  Session(const GlobalOptions& options, bool authenticate);
  ~Session();  // revokes an auto-minted token, best effort
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& relay() const { return relay_; }
  RelayHttp& http() { return http_; }
  // The API token the requests carry (given or auto-minted); empty under X-Pubkey.
  std::string bearer_token() const;
  // The signing key; key_error if none was given.
  const engine::Keypair& key() const;

  // One request with the session's auth. A 2xx answer's body comes back;
  // 401/403 throw auth_error, another status relay_error (§B.1 text).
  std::string request(const std::string& method, const std::string& path, const std::string& json_body = "");
  // The same, but any status comes back (a caller that treats one specially).
  HttpAnswer request_any(const std::string& method, const std::string& path, const std::string& json_body = "");
  // Signs e now with the key (created_at, id, pubkey, sig) and POSTs it to /api/events.
  std::string post_event(engine::Event e);

 private:
  RelayHttp http_;
  std::string relay_;
  std::optional<engine::Keypair> key_;
  std::pair<std::string, std::string> auth_header_;
  std::string auto_minted_id_;  // the token this session minted, to revoke at the end
};

// The CliError for a non-2xx answer: `relay error <status>: <msg>`, where msg
// is the body's "error" (or "message") field when it has one, else the body.
[[noreturn]] void throw_relay_error(const HttpAnswer& answer);

}  // namespace buzz::cli
