// Server configuration: one typed table of keys (config.cpp), read from a YAML file,
// then the environment (the original's variable names), then flags — each
// later source overriding the earlier. A bad value names the key and what it
// expects; `buzz serve` then exits with code 2 before starting anything. The
// flags are rows of the tools' option table (engine/options.h) made from the
// same keys, so `buzz serve --help` is written as every other command's.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hex.h"
#include "engine/options.h"
#include "engine/result.h"
#include "server/pipeline/rate_limits.h"

namespace buzz::server {

struct Config {
  std::string data_dir = "./data";
  std::string store;  // empty = the embedded store in data_dir; postgres://… = PostgreSQL (migrate/pg_event_store.h)
  std::string bind_host = "0.0.0.0";
  uint16_t bind_port = 3000;
  std::string relay_url;  // empty = ws://localhost:<port>
  uint16_t health_port = 0;   // the health listener on bind_host; 0 = off
  uint16_t metrics_port = 0;  // the Prometheus exporter on bind_host; 0 = off
  std::optional<engine::Pubkey> owner;
  bool require_membership = true;  // closed relay by default
  std::string relay_private_key;   // hex; empty = the key kept in the data directory
  bool pubkey_allowlist = false;   // legacy: key-only AUTH needs a listed pubkey (docs/reference/protocol.md §6.2)
  bool allow_nip_oa_auth = false;  // a member's attestation admits their agent (docs/reference/protocol.md §6.7)
  int64_t max_connections = 10000;
  int64_t max_unauthenticated_per_address = 256;  // 0 = no cap
  int64_t max_connections_per_pubkey = 32;        // 0 = no cap
  int64_t auth_timeout = 10;                      // seconds; 0 = none
  int64_t send_buffer_bytes = 16 << 20;           // per connection
  int64_t max_message_bytes = 131072;             // WebSocket messages acted on (docs/limits.md)
  int64_t send_memory_bytes = int64_t(1) << 30;   // relay-wide; 0 = no bound
  int64_t upload_bytes_in_flight = int64_t(2) << 30;   // 0 = no bound
  int64_t upload_bytes_per_pubkey = int64_t(1) << 30;  // 0 = no bound
  int64_t min_upload_rate = 4096;                 // bytes per second; 0 = none
  int64_t max_concurrent_handlers = 1024;
  int64_t send_buffer = 1000;
  int threads = 0;                 // 0 = one network loop per core
  int64_t shutdown_timeout = 10;   // seconds a SIGTERM's drain may take; 0 = none
  bool sync_writes = true;         // an OK true survives a power loss (one fsync per writer batch)
  int64_t block_cache_mib = 256;   // the embedded store's block cache
  int64_t audit_queue = 65536;     // audit entries queued for the log before events are refused
  int64_t search_queue = 8192;     // events queued for the full-text index (server/feeds/search_feeder.h)
  int64_t ping_interval = 30;      // seconds between WebSocket pings; also the HTTP idle unit
  int64_t neg_idle_timeout = 60;   // seconds an idle NIP-77 reconciliation stays open
  int64_t neg_max_events = 2'000'000;  // events one NIP-77 reconciliation may cover
  int64_t reaper_interval = 60;    // seconds between TTL reaper runs
  int64_t delivery_retention_days = 30;  // days of messages whose deliveries are kept for receipts; 0 = none
  int64_t huddle_recording_max_secs = 7200;        // a huddle recording or published track stops itself after this
  int64_t huddle_recording_track_bytes = 64 << 20;  // a recorded track keeps no frame past this
  int64_t huddle_recordings = 16;                   // recordings and published tracks at once, relay-wide
  bool reconcile_channels = false;  // BUZZ_RECONCILE_CHANNELS: group state for imported channels at start-up
  int64_t ephemeral_ttl_override = 0;  // seconds; nonzero replaces every 9007 ttl (testing aid)
  int64_t mint_rate_limit = 50;    // API tokens minted per pubkey per hour
  RateLimitConfig rate_limits;     // docs/reference/protocol.md §14
  std::string pubsub_url;          // redis://…: several nodes share fan-out, presence and rate limits; empty = alone
  std::string cors_origins;        // comma list of browser origins; empty = any
  std::string log_level = "info";
  bool require_auth_token = false;   // false = dev mode: media uploads need no API token
  // require-auth-token set to false explicitly (BUZZ_REQUIRE_AUTH_TOKEN=false):
  // the original's X-Pubkey development authentication, on a loopback bind only.
  bool pubkey_header_auth = false;
  std::string media_base_url;        // empty = RELAY_URL as http(s) + "/media"
  std::string media_server_domain;   // empty = RELAY_URL's host[:port]
  int64_t max_image_bytes = 50 << 20;
  int64_t max_gif_bytes = 10 << 20;
  int64_t max_file_bytes = 100 << 20;
  int64_t max_video_bytes = 500 << 20;
  int64_t workflow_max_concurrent = 100;  // workflow runs executing at once
  int64_t workflow_tick = 60;             // seconds between scheduler ticks
  std::vector<std::string> workflow_webhook_allow_hosts;  // internal hosts call_webhook may reach
  // Native TLS (docs/tls.md): both set = the port serves wss:// and https://.
  std::string tls_cert;  // PEM chain, leaf first
  std::string tls_key;   // PEM private key
  // NIP-11, from the operator (NIP-86's changerelay* override the first three).
  std::string relay_name = "Buzz Relay";
  std::string relay_description = "Buzz — private team communication relay";
  std::string relay_icon, relay_banner, relay_contact, relay_terms_of_service;
  std::optional<engine::Pubkey> relay_operator;  // NIP-11 pubkey; unset = the owner, if configured

  std::string effective_relay_url() const;
};

// One key: its names, its help, and how its text becomes a field of Config — the
// only place a key is spelled out, as in Redis's config.c.
struct ConfigKey {
  // Sets the field from the value; "" when accepted, else the rest of the message
  // after "config: KEY (SOURCE)", e.g. " = 'x': expected a positive integer".
  using Setter = std::function<std::string(Config&, const std::string& value)>;
  // What the key takes: the placeholder --help shows ("N", "URL"), and its setter.
  struct Value {
    const char* placeholder;
    Setter set;
  };

  const char* name;          // YAML key and --flag (with dashes)
  const char* env;
  const char* default_text;  // "" = unset
  const char* description;
  Value value;
};

// Every key, in the order --help and docs/configuration.md list them.
const std::vector<ConfigKey>& config_keys();

// `buzz serve`'s command line, as option rows: --config FILE, --open, then a
// --KEY VALUE row per key, with its variable, default and help. The rows only
// record what argv gives, in `flags`: the keys are set after the file and the
// environment (set_config, source "flag"), so a flag wins.
struct ServeFlags {
  std::optional<std::string> config_file;
  bool open = false;  // --require-membership false
  std::vector<std::pair<std::string, std::string>> keys;  // in argv's order
};
inline constexpr const char* kConfigFileEnv = "BUZZ_CONFIG";
std::vector<options::Option> serve_options(ServeFlags* flags);

// What `buzz serve --help` prints.
std::string serve_help();

// Sets one key from text. The error names the key and what it expects.
engine::Status set_config(Config* config, const std::string& key, const std::string& value, const char* source);

// The rules between keys, checked once every source is applied
// (max-gif-bytes <= max-image-bytes, tls-cert with tls-key, X-Pubkey
// authentication on a loopback bind only).
engine::Status check_config(const Config& config);

// 127.0.0.0/8, the loopback the relay can listen on (its loops bind IPv4).
bool is_loopback(std::string_view host);

// Applies a YAML file's top-level keys.
engine::Status load_config_file(Config* config, const std::string& path);

// Applies every set environment variable of the table.
engine::Status load_config_env(Config* config);

}  // namespace buzz::server
