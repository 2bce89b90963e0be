#include "tools/proxy/proxy_cli.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/hex.h"
#include "engine/options.h"
#include "net/loop.h"
#include "net/server_process.h"
#include "tools/proxy/channel_map.h"
#include "tools/proxy/proxy_service.h"
#include "tools/proxy/relay_fetch.h"
#include "tools/proxy/upstream_link.h"

namespace buzz::proxy {

namespace {

constexpr const char* kUsage = R"(buzz proxy — NIP-28 public chat for standard Nostr clients

Usage: buzz proxy

Serves the team's channels to any NIP-28 client as kinds 40/41/42 (kind 7
reactions pass through), for guests registered through the admin API or
holding an invite token (ws://host:port/?token=buzz_invite_…). Keeps one
authenticated WebSocket to the relay for all of them. Configured from the
environment:

)";

constexpr const char* kUsageTail = R"(
Admin API (JSON, Authorization: Bearer <secret>):
  POST   /admin/guests  {"pubkey":"<hex>","channels":"<uuid>,<uuid>"}
  DELETE /admin/guests  {"pubkey":"<hex>"}
  GET    /admin/guests
  POST   /admin/invite  {"channels":"<uuid>,…","hours":24,"max_uses":10}

Guests, invites and the id caches live in memory and are lost on restart.
)";

// The proxy's settings as the environment gives them, before they are checked.
struct Settings {
  std::string upstream_url, server_key, salt, api_token, relay_pubkey, bind, relay_url;
  std::optional<std::string> admin_secret;
};

std::vector<options::Option> table(Settings& s) {
  using options::text;
  return {
      {.env = "BUZZ_UPSTREAM_URL", .help = "relay WebSocket URL (required); also the relay tag of the proxy's AUTH, so "
                                           "it must match the relay's --relay-url",
       .parse = text(&s.upstream_url)},
      {.env = "BUZZ_PROXY_SERVER_KEY",
       .help = "hex secret key of the proxy (required); signs the upstream AUTH and the synthetic kinds 40/41",
       .parse = text(&s.server_key)},
      {.env = "BUZZ_PROXY_SALT", .help = "hex shadow-key salt (required, non-empty, keep it stable and secret)",
       .parse = text(&s.salt)},
      {.env = "BUZZ_PROXY_API_TOKEN",
       .help = "buzz_… token owned by the server key, scopes proxy:submit,channels:read,messages:read (required; "
               "buzz admin mint-token)",
       .parse = text(&s.api_token)},
      {.env = "BUZZ_RELAY_PUBKEY", .help = "hex pubkey of the relay (required)", .parse = text(&s.relay_pubkey)},
      {.env = "BUZZ_PROXY_BIND_ADDR", .default_text = "0.0.0.0:4869", .help = "listener", .parse = text(&s.bind)},
      {.env = "BUZZ_PROXY_RELAY_URL", .default_text = "ws://<bind addr>, not checked",
       .help = "the proxy's public URL; when set, a guest's AUTH relay tag must match it", .parse = text(&s.relay_url)},
      {.env = "BUZZ_PROXY_ADMIN_SECRET", .help = "Bearer secret of /admin/* (unset: the admin API is open)",
       .parse = text(&s.admin_secret)},
  };
}

int fail(const std::string& message) {
  std::fprintf(stderr, "buzz proxy: %s\n", message.c_str());
  return 1;
}

bool hex_bytes(const std::string& text, std::vector<uint8_t>* out) {
  if (text.size() % 2) return false;
  out->resize(text.size() / 2);
  return out->empty() || engine::from_hex_any_case(text, out->data(), out->size());
}

}  // namespace

int run_proxy(int argc, char** argv) {
  Settings env;
  const std::vector<options::Option> rows = table(env);
  const options::Parsed parsed = options::parse(rows, argc, argv, 2);
  if (parsed.outcome == options::Parsed::Outcome::kHelp) {
    std::printf("%s%s%s", kUsage, options::help(rows).c_str(), kUsageTail);
    return 0;
  }
  if (!parsed.ok()) {
    std::fprintf(stderr, "buzz proxy: %s (configuration is in the environment; see --help)\n", parsed.error.c_str());
    return options::kExitUsage;
  }
  if (std::string refused = options::apply_environment(rows, parsed); !refused.empty()) return fail(refused);

  ProxyConfig c;
  c.version = BUZZ_VERSION;
  c.upstream_url = env.upstream_url;
  if (c.upstream_url.empty()) return fail("BUZZ_UPSTREAM_URL is required");
  if (!c.upstream_url.starts_with("ws://")) return fail("BUZZ_UPSTREAM_URL must start with ws://");
  engine::SecretKey secret{};
  if (!engine::from_hex_any_case(env.server_key, secret.data(), secret.size())) {
    return fail("BUZZ_PROXY_SERVER_KEY must be a 64-hex secret key");
  }
  auto key = engine::keypair_from_secret(secret);
  if (!key) return fail("BUZZ_PROXY_SERVER_KEY is not a valid secret key");
  c.server_key = *key;
  if (!hex_bytes(env.salt, &c.salt)) return fail("BUZZ_PROXY_SALT must be hex");
  auto shadows = ShadowKeys::create(c.salt);
  if (!shadows) return fail(shadows.error());
  c.api_token = env.api_token;
  if (c.api_token.empty()) return fail("BUZZ_PROXY_API_TOKEN is required");
  if (!engine::from_hex_any_case(env.relay_pubkey, c.relay_pubkey.data(), c.relay_pubkey.size()) ||
      env.relay_pubkey.size() != 64) {
    return fail("BUZZ_RELAY_PUBKEY must be 64 hex characters");
  }
  std::string bind = env.bind;
  if (bind.empty()) bind = "0.0.0.0:4869";
  const size_t colon = bind.rfind(':');
  char* end = nullptr;
  const long port = colon == std::string::npos ? -1 : std::strtol(bind.c_str() + colon + 1, &end, 10);
  if (port < 0 || port > 65535 || !end || *end) return fail("BUZZ_PROXY_BIND_ADDR must be host:port");
  c.relay_url = env.relay_url;
  c.relay_url_enforced = !c.relay_url.empty();
  if (c.relay_url.empty()) c.relay_url = "ws://" + bind;
  c.admin_secret = env.admin_secret;

  // Before any thread starts: they inherit the blocked signals, and this one waits for them.
  const net::StopSignals stop_signals;
  net::raise_open_files_limit();  // a descriptor per guest

  const std::string upstream = c.upstream_url, token = c.api_token;
  ProxyService service(std::move(c), std::move(*shadows));
  // The channel map, before any guest arrives; refreshed while running.
  FetchAnswer channels = http_get(http_base_of(upstream) + "/api/channels", token);
  if (channels.status == 200) {
    if (auto rows = parse_channel_list(channels.body)) service.load_channels(*rows);
  } else {
    std::fprintf(stderr, "buzz proxy: GET /api/channels: %ld %s (retrying in the background)\n", channels.status,
                 channels.body.c_str());
  }

  net::LoopOptions options;
  options.host = bind.substr(0, colon);
  options.port = uint16_t(port);
  std::unique_ptr<net::Loop> loop;
  try {
    loop = std::make_unique<net::Loop>(0, options, service);
  } catch (const std::exception& e) {
    return fail(std::string("cannot listen on ") + bind + ": " + e.what());
  }
  net::Loop* l = loop.get();
  ProxyService* svc = &service;
  UpstreamLink link(upstream, {
      [l, svc] { l->post([svc] { svc->upstream_open(); }); },
      [l, svc](std::vector<std::string> batch) { l->post([svc, b = std::move(batch)] { svc->upstream_messages(b); }); },
      [l, svc](std::string why) { l->post([svc, w = std::move(why)] { svc->upstream_closed(w); }); },
  });
  RelayFetch fetch(http_base_of(upstream), token);
  service.attach(*loop, link, fetch);
  fetch.start();
  link.start();
  std::thread loop_thread([l] { l->run(); });
  std::fprintf(stderr, "buzz proxy: listening on %s:%u, upstream %s\n", options.host.c_str(), unsigned(loop->port()),
               upstream.c_str());

  stop_signals.wait();
  std::fprintf(stderr, "buzz proxy: stopping\n");
  link.stop();
  fetch.stop();
  loop->stop();
  loop_thread.join();
  return 0;
}

}  // namespace buzz::proxy
