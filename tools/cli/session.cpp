#include "tools/cli/session.h"

#include "engine/clock.h"
#include "engine/nip19.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/json_read.h"
#include "tools/cli/token_mint.h"

namespace buzz::cli {
namespace {

options::Parser unless_empty(std::optional<std::string>* target) {
  return [=](const std::string& v) -> std::string {
    if (!v.empty()) *target = v;
    return {};
  };
}

engine::Keypair parse_private_key(const std::string& text) {
  engine::SecretKey secret;
  // An nsec is how the harness hands an agent its key (docs/reference/agents-and-cli.md §A.6.2).
  if (auto bytes = engine::decode_bech32_key(text, "nsec")) {
    secret = *bytes;
  } else if (text.size() != 64 || !engine::from_hex_any_case(text, secret.data(), secret.size())) {
    throw CliError(Category::kKey, "invalid private key: expected 64 hex characters or nsec1…");
  }
  auto key = engine::keypair_from_secret(secret);
  if (!key) throw CliError(Category::kKey, "invalid private key: not a valid secp256k1 secret");
  return *key;
}

}  // namespace

std::vector<options::Option> global_options(GlobalOptions* g) {
  return {
      {.name = "relay", .env = "BUZZ_RELAY_URL", .value = "<URL>", .default_text = "http://localhost:3000",
       .help = "relay URL; ws:// and wss:// become http:// and https://", .parse = unless_empty(&g->relay)},
      {.name = "token", .env = "BUZZ_API_TOKEN", .value = "<TOKEN>", .help = "API token, sent as Authorization: Bearer",
       .parse = unless_empty(&g->token)},
      {.name = "private-key", .env = "BUZZ_PRIVATE_KEY", .value = "<KEY>",
       .help = "secret key, 64 hex or nsec1…: signs every write, and without a token mints a 1-day one",
       .parse = unless_empty(&g->private_key)},
      {.name = "pubkey", .env = "BUZZ_PUBKEY", .value = "<HEX>", .help = "dev mode: X-Pubkey, for relays that accept it",
       .parse = unless_empty(&g->pubkey)},
  };
}

std::string normalize_relay_url(std::string url) {
  if (url.starts_with("wss://")) url.replace(0, 3, "https");
  else if (url.starts_with("ws://")) url.replace(0, 2, "http");
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

Session::Session(const GlobalOptions& options, bool authenticate)
    : relay_(normalize_relay_url(options.relay.value_or("http://localhost:3000"))) {
  if (options.private_key) key_ = parse_private_key(*options.private_key);
  if (!authenticate) return;
  if (options.token) {
    auth_header_ = {"Authorization", "Bearer " + *options.token};
  } else if (key_) {
    MintedToken minted = mint_token(http_, relay_, *key_, {"buzz-cli-auto", 1, "auto-mint failed"});
    auth_header_ = {"Authorization", "Bearer " + minted.token};
    auto_minted_id_ = minted.id;
  } else if (options.pubkey) {
    auth_header_ = {"X-Pubkey", *options.pubkey};
  } else {
    throw CliError(Category::kAuth, "Set BUZZ_API_TOKEN, BUZZ_PRIVATE_KEY, or BUZZ_PUBKEY");
  }
}

Session::~Session() {
  if (auto_minted_id_.empty()) return;
  try {
    http_.call("DELETE", relay_ + "/api/tokens/" + auto_minted_id_, {auth_header_});
  } catch (const CliError&) {
    // The command's answer is out already; the token expires within a day anyway.
  }
}

std::string Session::bearer_token() const {
  constexpr std::string_view kBearer = "Bearer ";
  const std::string& v = auth_header_.second;
  return auth_header_.first == "Authorization" && v.starts_with(kBearer) ? v.substr(kBearer.size()) : "";
}

const engine::Keypair& Session::key() const {
  if (!key_) throw CliError(Category::kKey, "private key required for write operations (set BUZZ_PRIVATE_KEY)");
  return *key_;
}

HttpAnswer Session::request_any(const std::string& method, const std::string& path, const std::string& json_body) {
  Headers headers = {auth_header_};
  if (!json_body.empty()) headers.emplace_back("Content-Type", "application/json");
  return http_.call(method, relay_ + path, headers, json_body);
}

std::string Session::request(const std::string& method, const std::string& path, const std::string& json_body) {
  HttpAnswer answer = request_any(method, path, json_body);
  if (answer.status / 100 != 2) throw_relay_error(answer);
  return std::move(answer.body);
}

std::string Session::post_event(engine::Event e) {
  e.created_at = engine::unix_now();
  engine::sign_event(key(), &e);
  return request("POST", "/api/events", e.raw);
}

void throw_relay_error(const HttpAnswer& answer) {
  std::string message = string_field(answer.body, "error").value_or(string_field(answer.body, "message").value_or(answer.body));
  const Category c = answer.status == 401 || answer.status == 403 ? Category::kAuth : Category::kRelay;
  throw CliError(c, "relay error " + std::to_string(answer.status) + ": " + message);
}

}  // namespace buzz::cli
