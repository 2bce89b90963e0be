// The configuration table and its sources; see config.h.
#include "server/app/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <type_traits>

#include "migrate/redis_connection.h"

namespace buzz::server {
namespace {

using engine::Error;
using engine::Status;

using Value = ConfigKey::Value;

// What a setter answers for a refused value: the rest of the message after
// "config: KEY (SOURCE)", showing the value as `shown`.
std::string expected(const std::string& shown, std::string_view what) {
  return " = '" + shown + "': expected " + std::string(what);
}

bool parse_bool(const std::string& v, bool* out) {
  if (v == "true" || v == "1" || v == "yes" || v == "on") return *out = true, true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return *out = false, true;
  return false;
}

bool parse_int(const std::string& v, int64_t lo, int64_t hi, int64_t* out) {
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
  return ec == std::errc() && p == v.data() + v.size() && *out >= lo && *out <= hi;
}

std::string trimmed(const std::string& v, const char* blanks = " \t\r\n") {
  size_t b = v.find_first_not_of(blanks), e = v.find_last_not_of(blanks);
  return b == std::string::npos ? "" : v.substr(b, e - b + 1);
}

constexpr int64_t kTiB = int64_t(1) << 40;
constexpr const char* kPositive = "a positive integer";
constexpr const char* kPositiveBytes = "a positive number of bytes";
constexpr const char* kCountOrNone = "a count from 0 (no limit) to 10000000";

// The setters, by the type of what they set. `field` is a pointer to a member of
// Config or a function of a Config returning a reference to the target.
template <class Field>
Value number(Field field, int64_t lo, int64_t hi, std::string_view what) {
  return {"N", [=](Config& c, const std::string& v) -> std::string {
    int64_t n;
    if (!parse_int(v, lo, hi, &n)) return expected(v, what);
    auto& target = std::invoke(field, c);
    target = std::remove_reference_t<decltype(target)>(n);
    return {};
  }};
}

template <class Field>
Value flag(Field field) {
  return {"BOOL", [=](Config& c, const std::string& v) -> std::string {
    return parse_bool(v, &std::invoke(field, c)) ? "" : expected(v, "true or false");
  }};
}

// The original turns it on by the variable's presence, whatever its value.
Value presence_flag(bool Config::*field) {
  return {"BOOL", [=](Config& c, const std::string& v) -> std::string {
    if (!parse_bool(v, &(c.*field))) c.*field = true;
    return {};
  }};
}

Value text(const char* placeholder, std::string Config::*field) {
  return {placeholder, [=](Config& c, const std::string& v) -> std::string {
    c.*field = v;
    return {};
  }};
}

Value path(std::string Config::*field) {
  return {"DIR", [=](Config& c, const std::string& v) -> std::string {
    if (v.empty()) return expected(v, "a directory path");
    c.*field = v;
    return {};
  }};
}

// NIP-11 texts: bounded, as the document is sent to every client that asks.
Value nip11_text(const char* placeholder, std::string Config::*field) {
  return {placeholder, [=](Config& c, const std::string& v) -> std::string {
    if (v.size() > 4096) return expected(v.substr(0, 32) + "…", "at most 4096 bytes");
    c.*field = v;
    return {};
  }};
}

Value pubkey(std::optional<engine::Pubkey> Config::*field) {
  return {"HEX", [=](Config& c, const std::string& v) -> std::string {
    engine::Pubkey pk;
    if (!engine::from_hex_any_case(trimmed(v), pk.data(), pk.size())) return expected(v, "64 hex characters");
    c.*field = pk;
    return {};
  }};
}

// A secret is never repeated in a message.
Value secret_key(std::string Config::*field) {
  return {"HEX", [=](Config& c, const std::string& v) -> std::string {
    uint8_t sk[32];
    if (!engine::from_hex_any_case(v, sk, 32)) return expected("<hidden>", "64 hex characters");
    c.*field = v;
    return {};
  }};
}

// A comma list, each entry trimmed, empty entries dropped.
Value host_list(std::vector<std::string> Config::*field) {
  return {"HOST,HOST", [=](Config& c, const std::string& v) -> std::string {
    std::vector<std::string>& hosts = c.*field;
    hosts.clear();
    for (size_t start = 0; start <= v.size();) {
      size_t comma = std::min(v.find(',', start), v.size());
      if (std::string host = trimmed(v.substr(start, comma - start), " \t"); !host.empty()) hosts.push_back(host);
      start = comma + 1;
    }
    return {};
  }};
}

// The rate-limit counts (0 = no limit), by tier or per connection.
auto messages_of(Tier t) {
  return [t](Config& c) -> uint32_t& { return c.rate_limits.messages_per_min[size_t(t)]; };
}
auto api_calls_of(Tier t) {
  return [t](Config& c) -> uint32_t& { return c.rate_limits.api_calls_per_min[size_t(t)]; };
}
auto frames(uint32_t RateLimitConfig::*field) {
  return [field](Config& c) -> uint32_t& { return c.rate_limits.*field; };
}
template <class Field>
Value limit(Field field) {
  return number(field, 0, 100'000'000, "a count from 0 (no limit) to 100000000");
}

Value tier_assignments() {
  return {"HEX=TIER,...", [](Config& c, const std::string& v) -> std::string {
    engine::Status s = parse_tier_assignments(v, &c.rate_limits.assigned);
    return s ? "" : ": " + s.error();
  }};
}

Value store_url() {
  return {"URL", [](Config& c, const std::string& v) -> std::string {
    if (!v.empty() && !v.starts_with("postgres://") && !v.starts_with("postgresql://")) {
      // Only the scheme: the rest may hold a password.
      return expected(v.substr(0, v.find("://")) + "://…",
                      "postgres://USER:PASS@HOST:PORT/DB, or unset for the embedded store");
    }
    c.store = v;
    return {};
  }};
}

Value bind_address() {
  return {"HOST:PORT", [](Config& c, const std::string& v) -> std::string {
    size_t colon = v.rfind(':');
    int64_t port;
    if (colon == std::string::npos || !parse_int(v.substr(colon + 1), 0, 65535, &port)) {
      return expected(v, "HOST:PORT, e.g. 0.0.0.0:3000");
    }
    c.bind_host = v.substr(0, colon);
    if (c.bind_host == "localhost") c.bind_host = "127.0.0.1";
    c.bind_port = uint16_t(port);
    return {};
  }};
}

Value relay_url() {
  return {"URL", [](Config& c, const std::string& v) -> std::string {
    if (!v.starts_with("ws://") && !v.starts_with("wss://")) return expected(v, "a ws:// or wss:// URL");
    c.relay_url = v;
    return {};
  }};
}

Value media_base_url() {
  return {"URL", [](Config& c, const std::string& v) -> std::string {
    if (!(v.starts_with("http://") || v.starts_with("https://")) || !v.ends_with("/media")) {
      return expected(v, "an http(s) URL ending in /media, e.g. https://buzz.example.com/media");
    }
    c.media_base_url = v;
    return {};
  }};
}

// false set explicitly is the original's X-Pubkey development mode (check_config bounds it).
Value auth_token_rule() {
  return {"BOOL", [](Config& c, const std::string& v) -> std::string {
    if (!parse_bool(v, &c.require_auth_token)) return expected(v, "true or false");
    c.pubkey_header_auth = !c.require_auth_token;
    return {};
  }};
}

Value redis_url() {
  return {"URL", [](Config& c, const std::string& v) -> std::string {
    if (!v.empty() && !migrate::parse_redis_url(v)) return expected(v, "redis://[:password@]host[:port][/db]");
    c.pubsub_url = v;
    return {};
  }};
}

Value log_level() {
  return {"LEVEL", [](Config& c, const std::string& v) -> std::string {
    if (v != "debug" && v != "info" && v != "warn" && v != "error") return expected(v, "debug, info, warn or error");
    c.log_level = v;
    return {};
  }};
}

const std::vector<ConfigKey> kKeys = {
    {"data-dir", "BUZZ_DATA_DIR", "./data", "directory holding the database, keys and audit log",
     path(&Config::data_dir)},
    {"store", "BUZZ_STORE", "",
     "where events, team state and the audit chain live: unset = the embedded store in the data directory; "
     "postgres://USER:PASS@HOST:PORT/DB = PostgreSQL with the original's schema (several nodes may share it)",
     store_url()},
    {"bind", "BUZZ_BIND_ADDR", "0.0.0.0:3000", "address and port to listen on (WebSocket and HTTP)", bind_address()},
    {"health-port", "BUZZ_HEALTH_PORT", "",
     "a port on the bind host for probes: /_liveness, /_readiness, /_status, /health; unset = off (the main port "
     "answers all but /_status)",
     number(&Config::health_port, 1, 65535, "a port from 1 to 65535")},
    {"metrics-port", "BUZZ_METRICS_PORT", "",
     "a port on the bind host for Prometheus: /metrics; unset = off (the main port answers it)",
     number(&Config::metrics_port, 1, 65535, "a port from 1 to 65535")},
    {"relay-url", "RELAY_URL", "ws://localhost:<port>", "public URL; the NIP-42 relay tag must match it", relay_url()},
    {"owner", "RELAY_OWNER_PUBKEY", "", "hex pubkey of the relay owner (NIP-43)", pubkey(&Config::owner)},
    {"require-membership", "BUZZ_REQUIRE_RELAY_MEMBERSHIP", "true", "closed relay: only relay members may authenticate",
     flag(&Config::require_membership)},
    {"relay-private-key", "BUZZ_RELAY_PRIVATE_KEY", "", "hex secret key of the relay; default: <data-dir>/relay.key",
     secret_key(&Config::relay_private_key)},
    {"pubkey-allowlist", "BUZZ_PUBKEY_ALLOWLIST", "false",
     "legacy gate: AUTH without an API token, and dev-mode uploads, need a pubkey on the allow-list (buzz admin "
     "allowlist-add)",
     flag(&Config::pubkey_allowlist)},
    {"allow-nip-oa-auth", "BUZZ_ALLOW_NIP_OA_AUTH", "false",
     "closed relay: admit an agent whose owner, a member, signed a NIP-OA attestation for it",
     flag(&Config::allow_nip_oa_auth)},
    {"max-connections", "BUZZ_MAX_CONNECTIONS", "10000", "concurrent connections; more are refused with HTTP 503",
     number(&Config::max_connections, 1, 10'000'000, kPositive)},
    {"max-unauthenticated-per-address", "BUZZ_MAX_UNAUTHENTICATED_PER_ADDRESS", "256",
     "connections from one IP address not (yet) authenticated: plain HTTP, and WebSocket before AUTH; more are refused "
     "with HTTP 429; behind a reverse proxy every client has its address; 0 = no cap",
     number(&Config::max_unauthenticated_per_address, 0, 10'000'000, kCountOrNone)},
    {"max-connections-per-pubkey", "BUZZ_MAX_CONNECTIONS_PER_PUBKEY", "32",
     "authenticated WebSocket sessions of one pubkey; an AUTH past it is refused and its connection closed; 0 = no cap",
     number(&Config::max_connections_per_pubkey, 0, 10'000'000, kCountOrNone)},
    {"auth-timeout", "BUZZ_AUTH_TIMEOUT_SECS", "10",
     "closed relay: seconds a WebSocket session may stay without AUTH before it is closed (1008); 0 = no deadline",
     number(&Config::auth_timeout, 0, 3600, "seconds from 0 (no deadline) to 3600")},
    {"max-concurrent-handlers", "BUZZ_MAX_CONCURRENT_HANDLERS", "1024", "events waiting for the store at once",
     number(&Config::max_concurrent_handlers, 1, 10'000'000, kPositive)},
    {"send-buffer", "BUZZ_SEND_BUFFER", "1000", "outbound frames queued per connection before it counts as slow",
     number(&Config::send_buffer, 1, 10'000'000, kPositive)},
    {"send-buffer-bytes", "BUZZ_SEND_BUFFER_BYTES", "16777216",
     "bytes queued per connection: past it a REQ's history stops without EOSE, live events count as refused, and "
     "the connection's requests are not read until its answers drain",
     number(&Config::send_buffer_bytes, 65536, kTiB, "bytes from 65536 to 2^40")},
    {"send-memory-bytes", "BUZZ_SEND_MEMORY_BYTES", "1073741824",
     "bytes queued for all connections; past it the slowest readers are closed (1008) until it is back under; 0 = no "
     "bound",
     number(&Config::send_memory_bytes, 0, kTiB, "bytes from 0 to 2^40")},
    {"max-message-bytes", "BUZZ_MAX_MESSAGE_BYTES", "131072",
     "the largest WebSocket message acted on (NIP-11 max_message_length); an authenticated client's message up to half "
     "as large again is refused in words (OK false, CLOSED, NEG-ERR), a bigger one or anyone else's closes the "
     "connection (1009)",
     number(&Config::max_message_bytes, 16384, 16 << 20, "bytes from 16384 to 16777216")},
    {"threads", "BUZZ_THREADS", "0", "network loops; 0 = one per core",
     number(&Config::threads, 0, 256, "an integer from 0 to 256")},
    {"shutdown-timeout", "BUZZ_SHUTDOWN_TIMEOUT_SECS", "10",
     "seconds SIGTERM waits for the events already read to be stored and answered and for every connection to close "
     "(WebSockets with 1001) before the rest are cut; 0 = cut at once",
     number(&Config::shutdown_timeout, 0, 3600, "seconds from 0 (cut at once) to 3600")},
    {"sync-writes", "BUZZ_SYNC_WRITES", "true",
     "fsync each write batch before its OKs (one fsync per batch of events); false survives a process crash, not a "
     "power loss",
     flag(&Config::sync_writes)},
    {"block-cache-mib", "BUZZ_BLOCK_CACHE_MIB", "256",
     "the embedded store's block cache (recently read table blocks), in MiB; smaller suits a small machine, reads then "
     "go to disk more often",
     number(&Config::block_cache_mib, 1, 1 << 20, "MiB from 1 to 1048576")},
    {"audit-queue", "BUZZ_AUDIT_QUEUE", "65536", "audit entries waiting for the log; when full, events are refused",
     number(&Config::audit_queue, 1, 10'000'000, kPositive)},
    {"search-queue", "BUZZ_SEARCH_QUEUE", "8192",
     "events waiting for the full-text index; past half, senders of EVENTs are slowed until it catches up",
     number(&Config::search_queue, 1, 10'000'000, kPositive)},
    {"ping-interval", "BUZZ_PING_INTERVAL_SECS", "30",
     "seconds between WebSocket pings (the first at connect; no pong by the third closes); HTTP connections idle 2 "
     "intervals close",
     number(&Config::ping_interval, 1, 3600, "seconds between 1 and 3600")},
    {"neg-idle-timeout", "BUZZ_NEG_IDLE_TIMEOUT_SECS", "60",
     "seconds a NIP-77 reconciliation (NEG-OPEN) may wait for its next NEG-MSG before it is closed with NEG-ERR",
     number(&Config::neg_idle_timeout, 1, 86400, "seconds between 1 and 86400")},
    {"neg-max-events", "BUZZ_NEG_MAX_EVENTS", "2000000",
     "events one NIP-77 reconciliation may cover (40 bytes each in memory); a bigger set gets NEG-ERR blocked",
     number(&Config::neg_max_events, 1, 100'000'000, "a count from 1 to 100000000")},
    {"reconcile-channels", "BUZZ_RECONCILE_CHANNELS", "false",
     "at start-up, give each channel without group state its 39000-39002 (after importing a database); set = on, as "
     "the original",
     presence_flag(&Config::reconcile_channels)},
    {"reaper-interval", "BUZZ_REAPER_INTERVAL_SECS", "60", "seconds between runs of the ephemeral-channel (TTL) reaper",
     number(&Config::reaper_interval, 1, 10'000'000, kPositive)},
    {"delivery-retention-days", "BUZZ_DELIVERY_RETENTION_DAYS", "30",
     "days of channel messages whose deliveries are kept for receipts (<data-dir>/deliveries); 0 = none recorded",
     number(&Config::delivery_retention_days, 0, 3650, "days from 0 (none recorded) to 3650")},
    {"huddle-recording-max-secs", "BUZZ_HUDDLE_RECORDING_MAX_SECS", "7200",
     "seconds after which a huddle recording or published track stops itself and is published",
     number(&Config::huddle_recording_max_secs, 1, 86400, "seconds from 1 to 86400")},
    {"huddle-recording-track-bytes", "BUZZ_HUDDLE_RECORDING_TRACK_BYTES", "67108864",
     "bytes of one participant's recorded track file; past them that track ends where it is, the recording goes on",
     number(&Config::huddle_recording_track_bytes, 4096, 4 * (int64_t(1) << 30), "bytes from 4096 to 4294967296")},
    {"huddle-recordings", "BUZZ_HUDDLE_RECORDINGS", "16",
     "huddle recordings and published tracks running at once, relay-wide; past them a start is refused",
     number(&Config::huddle_recordings, 1, 1024, "a count from 1 to 1024")},
    {"ephemeral-ttl-override", "BUZZ_EPHEMERAL_TTL_OVERRIDE", "",
     "seconds that replace the ttl of every channel created with one (a testing aid); unset = as sent",
     number(&Config::ephemeral_ttl_override, 1, INT32_MAX, "a positive number of seconds")},
    {"mint-rate-limit", "BUZZ_MINT_RATE_LIMIT", "50", "API tokens one pubkey may mint per hour",
     number(&Config::mint_rate_limit, 1, 10'000'000, kPositive)},
    {"rate-limits", "BUZZ_RATE_LIMITS", "true", "enforce the per-tier limits below (false: only the mint limit)",
     flag([](Config& c) -> bool& { return c.rate_limits.enabled; })},
    {"human-messages-per-min", "BUZZ_HUMAN_MESSAGES_PER_MIN", "60",
     "messages (kinds 1, 7, 9, 40002-40008, 45001-45003) one human may send per minute, after a burst of twice as "
     "many; 0 = no limit",
     limit(messages_of(Tier::kHuman))},
    {"human-api-calls-per-min", "BUZZ_HUMAN_API_CALLS_PER_MIN", "300",
     "HTTP API calls per human pubkey per minute; 0 = no limit", limit(api_calls_of(Tier::kHuman))},
    {"human-ws-events-per-sec", "BUZZ_HUMAN_WS_EVENTS_PER_SEC", "10",
     "EVENT frames per human connection per second, sustained; 0 = no limit",
     limit(frames(&RateLimitConfig::human_ws_events_per_sec))},
    {"human-ws-events-burst", "BUZZ_HUMAN_WS_EVENTS_BURST", "100",
     "EVENT frames a human connection may send at once before the per-second rate applies (a token bucket; at least "
     "that rate)",
     limit(frames(&RateLimitConfig::human_ws_events_burst))},
    {"human-reads-per-sec", "BUZZ_HUMAN_READS_PER_SEC", "20",
     "read units per human connection per second, sustained: a REQ, COUNT or NEG frame is one, plus one per 100 events "
     "a replay sends; 0 = no limit",
     limit(frames(&RateLimitConfig::human_reads_per_sec))},
    {"human-reads-burst", "BUZZ_HUMAN_READS_BURST", "1100",
     "read units a human connection may spend at once (at least max_subscriptions, so a client opens all its "
     "subscriptions at connect)",
     limit(frames(&RateLimitConfig::human_reads_burst))},
    {"agent-standard-messages-per-min", "BUZZ_AGENT_STANDARD_MESSAGES_PER_MIN", "120",
     "messages per minute for agents (a 10100 agent_type or an owner link)", limit(messages_of(Tier::kAgentStandard))},
    {"agent-standard-api-calls-per-min", "BUZZ_AGENT_STANDARD_API_CALLS_PER_MIN", "600",
     "API calls per minute for agents", limit(api_calls_of(Tier::kAgentStandard))},
    {"agent-elevated-messages-per-min", "BUZZ_AGENT_ELEVATED_MESSAGES_PER_MIN", "300",
     "messages per minute for the agent-elevated tier (no API or frame limit)",
     limit(messages_of(Tier::kAgentElevated))},
    {"agent-platform-messages-per-min", "BUZZ_AGENT_PLATFORM_MESSAGES_PER_MIN", "600",
     "messages per minute for the agent-platform tier (no API or frame limit)",
     limit(messages_of(Tier::kAgentPlatform))},
    {"rate-limit-tiers", "BUZZ_RATE_LIMIT_TIERS", "",
     "tiers the operator assigns: HEX_PUBKEY=TIER,... (human, agent-standard, agent-elevated, agent-platform)",
     tier_assignments()},
    {"pubsub", "REDIS_URL", "",
     "redis://[:password@]host[:port][/db]: run as one of several nodes sharing this Redis for fan-out, presence and "
     "rate limits; unset = a lone node",
     redis_url()},
    {"cors-origins", "BUZZ_CORS_ORIGINS", "", "browser origins allowed to call the API (comma list); empty = any",
     text("ORIGIN,ORIGIN", &Config::cors_origins)},
    {"log-level", "BUZZ_LOG", "info", "debug, info, warn or error", log_level()},
    {"require-auth-token", "BUZZ_REQUIRE_AUTH_TOKEN", "",
     "true: media uploads need an API token (X-Auth-Token); unset: they do not; false (set explicitly): the original's "
     "development mode, also an unsigned X-Pubkey header on the HTTP bridge and REST, on a loopback bind only",
     auth_token_rule()},
    {"media-base-url", "BUZZ_MEDIA_BASE_URL", "<relay-url as http(s)>/media",
     "public URL of /media, used in upload descriptors", media_base_url()},
    {"media-server-domain", "BUZZ_MEDIA_SERVER_DOMAIN", "<relay-url host[:port]>",
     "the server that Blossom auth `server` tags must name", text("HOST[:PORT]", &Config::media_server_domain)},
    {"max-image-bytes", "BUZZ_MAX_IMAGE_BYTES", "52428800", "largest image upload (JPEG, PNG, WebP)",
     number(&Config::max_image_bytes, 1, kTiB, kPositiveBytes)},
    {"max-gif-bytes", "BUZZ_MAX_GIF_BYTES", "10485760", "largest GIF upload; at most max-image-bytes",
     number(&Config::max_gif_bytes, 1, kTiB, kPositiveBytes)},
    {"max-file-bytes", "BUZZ_MAX_FILE_BYTES", "104857600",
     "largest upload of any other file type (PDF, archives, audio, ...)",
     number(&Config::max_file_bytes, 1, kTiB, kPositiveBytes)},
    {"max-video-bytes", "BUZZ_MAX_VIDEO_BYTES", "524288000",
     "largest video upload (H.264 MP4, sent with a video/* Content-Type; streamed to disk)",
     number(&Config::max_video_bytes, 1, kTiB, kPositiveBytes)},
    {"upload-bytes-in-flight", "BUZZ_UPLOAD_BYTES_IN_FLIGHT", "2147483648",
     "bytes of upload bodies admitted and not yet answered (a chunked one counts its limit); more are refused with "
     "503; 0 = no bound",
     number(&Config::upload_bytes_in_flight, 0, kTiB, "bytes from 0 to 2^40")},
    {"upload-bytes-per-pubkey", "BUZZ_UPLOAD_BYTES_PER_PUBKEY", "1073741824",
     "the same per uploading pubkey; more are refused with 429; 0 = no bound",
     number(&Config::upload_bytes_per_pubkey, 0, kTiB, "bytes from 0 to 2^40")},
    {"min-upload-rate", "BUZZ_MIN_UPLOAD_BYTES_PER_SEC", "4096",
     "bytes per second an upload body over 256 KiB must keep up, over each ping interval; slower is refused with 408; "
     "0 = none",
     number(&Config::min_upload_rate, 0, 10'000'000, kCountOrNone)},
    {"workflow-max-concurrent", "BUZZ_WORKFLOW_MAX_CONCURRENT", "100",
     "workflow runs executing at once; a run triggered beyond it fails with \"capacity exceeded\"",
     number(&Config::workflow_max_concurrent, 1, 10000, "an integer from 1 to 10000")},
    {"workflow-tick", "BUZZ_WORKFLOW_TICK_SECS", "60",
     "seconds between runs of the workflow scheduler (cron, interval, approval expiry); lower only for tests",
     number(&Config::workflow_tick, 1, 3600, "seconds between 1 and 3600")},
    {"workflow-webhook-allow-hosts", "BUZZ_WORKFLOW_WEBHOOK_ALLOW_HOSTS", "",
     "comma list of internal hosts call_webhook may reach despite the SSRF rules (exact host, e.g. 127.0.0.1)",
     host_list(&Config::workflow_webhook_allow_hosts)},
    // Native TLS (docs/tls.md).
    {"tls-cert", "BUZZ_TLS_CERT", "",
     "PEM certificate chain (leaf first): the port serves wss:// and https:// itself; SIGHUP reloads it; needs tls-key",
     text("FILE", &Config::tls_cert)},
    {"tls-key", "BUZZ_TLS_KEY", "", "PEM private key of tls-cert", text("FILE", &Config::tls_key)},
    // NIP-11, from the operator; NIP-86's changerelayname / …description / …icon override the first three.
    {"relay-name", "BUZZ_RELAY_NAME", "Buzz Relay", "NIP-11 name", nip11_text("TEXT", &Config::relay_name)},
    {"relay-description", "BUZZ_RELAY_DESCRIPTION", "Buzz — private team communication relay", "NIP-11 description",
     nip11_text("TEXT", &Config::relay_description)},
    {"relay-icon", "BUZZ_RELAY_ICON", "", "NIP-11 icon: an image URL", nip11_text("URL", &Config::relay_icon)},
    {"relay-banner", "BUZZ_RELAY_BANNER", "", "NIP-11 banner: an image URL", nip11_text("URL", &Config::relay_banner)},
    {"relay-contact", "BUZZ_RELAY_CONTACT", "", "NIP-11 contact: a mailto: or https: URI",
     nip11_text("URI", &Config::relay_contact)},
    {"relay-terms-of-service", "BUZZ_RELAY_TERMS_OF_SERVICE", "", "NIP-11 terms_of_service: a URL",
     nip11_text("URL", &Config::relay_terms_of_service)},
    {"relay-operator-pubkey", "BUZZ_RELAY_OPERATOR_PUBKEY", "<owner>", "NIP-11 pubkey: the operator's hex pubkey",
     pubkey(&Config::relay_operator)},
};

}  // namespace

const std::vector<ConfigKey>& config_keys() { return kKeys; }

std::vector<options::Option> serve_options(ServeFlags* flags) {
  std::vector<options::Option> rows = {
      {.name = "config", .env = kConfigFileEnv, .value = "FILE",
       .help = "a YAML file of the keys below (dashed or snake_case), read first", .parse = options::text(&flags->config_file),
       .last_wins = true},
      {.name = "open", .help = "shorthand for --require-membership false", .parse = options::flag(&flags->open),
       .last_wins = true},
  };
  for (const ConfigKey& k : kKeys) {
    // Given twice, the last value wins, as in the file.
    rows.push_back({.name = k.name, .env = k.env, .value = k.value.placeholder,
                    .default_text = *k.default_text ? k.default_text : nullptr, .help = k.description,
                    .parse = [flags, name = k.name](const std::string& v) {
                      flags->keys.emplace_back(name, v);
                      return std::string();
                    },
                    .last_wins = true});
  }
  return rows;
}

std::string serve_help() {
  ServeFlags unused;
  return "Usage: buzz serve [--config FILE] [--open] [--KEY VALUE ...]\n\n"
         "Runs the relay. Settings come from the YAML file (--config or " + std::string(kConfigFileEnv) +
         "), then\nthe environment, then flags; later sources win.\n\nOptions:\n" + options::help(serve_options(&unused));
}

std::string Config::effective_relay_url() const {
  if (!relay_url.empty()) return relay_url;
  return (tls_cert.empty() ? "ws://localhost:" : "wss://localhost:") + std::to_string(bind_port);
}

Status set_config(Config* c, const std::string& key, const std::string& v, const char* source) {
  auto k = std::find_if(kKeys.begin(), kKeys.end(), [&](const ConfigKey& row) { return row.name == key; });
  if (k == kKeys.end()) return Error{"config: unknown key '" + key + "' (" + source + "); see buzz serve --help"};
  if (std::string refused = k->value.set(*c, v); !refused.empty())
    return Error{"config: " + key + " (" + source + ")" + refused};
  return {};
}

bool is_loopback(std::string_view host) { return host.starts_with("127."); }

Status check_config(const Config& c) {
  if ((c.health_port != 0 && c.health_port == c.bind_port) || (c.metrics_port != 0 && c.metrics_port == c.bind_port)) {
    return Error{"config: health-port and metrics-port must differ from the bind port (" + std::to_string(c.bind_port) + ")"};
  }
  if (c.tls_cert.empty() != c.tls_key.empty()) return Error{"config: tls-cert and tls-key must be set together"};
  // Anyone who reaches the port could act as anyone: only a process on this host may.
  if (c.pubkey_header_auth && !is_loopback(c.bind_host)) {
    return Error{"config: require-auth-token false (BUZZ_REQUIRE_AUTH_TOKEN=false) accepts an unsigned X-Pubkey header "
                 "as the caller's identity, a development mode honoured only on a loopback bind; this relay would "
                 "listen on " + c.bind_host + ": bind 127.0.0.1 (--bind 127.0.0.1:PORT) or leave require-auth-token unset"};
  }
  if (c.max_gif_bytes > c.max_image_bytes) {
    return Error{"config: max-gif-bytes (" + std::to_string(c.max_gif_bytes) + ") must not exceed max-image-bytes (" +
                 std::to_string(c.max_image_bytes) + ")"};
  }
  return {};
}

Status load_config_file(Config* c, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    return Error{"config: cannot read " + path + ": " + e.what()};
  }
  if (root.IsNull()) return {};
  if (!root.IsMap()) return Error{"config: " + path + " must be a mapping of key: value"};
  std::string source = "file " + path;
  for (const auto& kv : root) {
    std::string key = kv.first.as<std::string>();
    for (char& ch : key) {
      if (ch == '_') ch = '-';  // YAML files may use snake_case
    }
    if (!kv.second.IsScalar()) return Error{"config: " + key + " (" + source + "): expected a single value"};
    if (Status s = set_config(c, key, kv.second.as<std::string>(), source.c_str()); !s) return s;
  }
  return {};
}

Status load_config_env(Config* c) {
  for (const ConfigKey& k : kKeys) {
    const char* v = std::getenv(k.env);
    if (!v) continue;
    if (Status s = set_config(c, k.name, v, k.env); !s) return s;
  }
  return {};
}

}  // namespace buzz::server
