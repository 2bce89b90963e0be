// The configuration table and its sources; see config.h.
#include "server/app/config.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdlib>
#include <functional>
#include <map>

#include "migrate/redis_connection.h"

namespace buzz::server {
namespace {

using engine::Error;
using engine::Status;

const std::vector<ConfigKey> kKeys = {
    {"data-dir", "BUZZ_DATA_DIR", "./data", "directory holding the database, keys and audit log"},
    {"store", "BUZZ_STORE", "",
     "where events, team state and the audit chain live: unset = the embedded store in the data directory; "
     "postgres://USER:PASS@HOST:PORT/DB = PostgreSQL with the original's schema (several nodes may share it)"},
    {"bind", "BUZZ_BIND_ADDR", "0.0.0.0:3000", "address and port to listen on (WebSocket and HTTP)"},
    {"health-port", "BUZZ_HEALTH_PORT", "",
     "a port on the bind host for probes: /_liveness, /_readiness, /_status, /health; unset = off (the main port answers all but /_status)"},
    {"metrics-port", "BUZZ_METRICS_PORT", "", "a port on the bind host for Prometheus: /metrics; unset = off (the main port answers it)"},
    {"relay-url", "RELAY_URL", "ws://localhost:<port>", "public URL; the NIP-42 relay tag must match it"},
    {"owner", "RELAY_OWNER_PUBKEY", "", "hex pubkey of the relay owner (NIP-43)"},
    {"require-membership", "BUZZ_REQUIRE_RELAY_MEMBERSHIP", "true", "closed relay: only relay members may authenticate"},
    {"relay-private-key", "BUZZ_RELAY_PRIVATE_KEY", "", "hex secret key of the relay; default: <data-dir>/relay.key"},
    {"pubkey-allowlist", "BUZZ_PUBKEY_ALLOWLIST", "false",
     "legacy gate: AUTH without an API token, and dev-mode uploads, need a pubkey on the allow-list (buzz admin allowlist-add)"},
    {"allow-nip-oa-auth", "BUZZ_ALLOW_NIP_OA_AUTH", "false",
     "closed relay: admit an agent whose owner, a member, signed a NIP-OA attestation for it"},
    {"max-connections", "BUZZ_MAX_CONNECTIONS", "10000", "concurrent connections; more are refused with HTTP 503"},
    {"max-unauthenticated-per-address", "BUZZ_MAX_UNAUTHENTICATED_PER_ADDRESS", "256",
     "connections from one IP address not (yet) authenticated: plain HTTP, and WebSocket before AUTH; more are refused "
     "with HTTP 429; behind a reverse proxy every client has its address; 0 = no cap"},
    {"max-connections-per-pubkey", "BUZZ_MAX_CONNECTIONS_PER_PUBKEY", "32",
     "authenticated WebSocket sessions of one pubkey; an AUTH past it is refused and its connection closed; 0 = no cap"},
    {"auth-timeout", "BUZZ_AUTH_TIMEOUT_SECS", "10",
     "closed relay: seconds a WebSocket session may stay without AUTH before it is closed (1008); 0 = no deadline"},
    {"max-concurrent-handlers", "BUZZ_MAX_CONCURRENT_HANDLERS", "1024", "events waiting for the store at once"},
    {"send-buffer", "BUZZ_SEND_BUFFER", "1000", "outbound frames queued per connection before it counts as slow"},
    {"send-buffer-bytes", "BUZZ_SEND_BUFFER_BYTES", "16777216",
     "bytes queued per connection: past it a REQ's history stops without EOSE, live events count as refused, and "
     "the connection's requests are not read until its answers drain"},
    {"send-memory-bytes", "BUZZ_SEND_MEMORY_BYTES", "1073741824",
     "bytes queued for all connections; past it the slowest readers are closed (1008) until it is back under; 0 = no bound"},
    {"max-message-bytes", "BUZZ_MAX_MESSAGE_BYTES", "131072",
     "the largest WebSocket message acted on (NIP-11 max_message_length); an authenticated client's message up to half "
     "as large again is refused in words (OK false, CLOSED, NEG-ERR), a bigger one or anyone else's closes the connection (1009)"},
    {"threads", "BUZZ_THREADS", "0", "network loops; 0 = one per core"},
    {"shutdown-timeout", "BUZZ_SHUTDOWN_TIMEOUT_SECS", "10",
     "seconds SIGTERM waits for the events already read to be stored and answered and for every connection to close "
     "(WebSockets with 1001) before the rest are cut; 0 = cut at once"},
    {"sync-writes", "BUZZ_SYNC_WRITES", "true",
     "fsync each write batch before its OKs (one fsync per batch of events); false survives a process crash, not a power loss"},
    {"block-cache-mib", "BUZZ_BLOCK_CACHE_MIB", "256",
     "the embedded store's block cache (recently read table blocks), in MiB; smaller suits a small machine, reads then go to disk more often"},
    {"audit-queue", "BUZZ_AUDIT_QUEUE", "65536", "audit entries waiting for the log; when full, events are refused"},
    {"search-queue", "BUZZ_SEARCH_QUEUE", "8192",
     "events waiting for the full-text index; past half, senders of EVENTs are slowed until it catches up"},
    {"ping-interval", "BUZZ_PING_INTERVAL_SECS", "30",
     "seconds between WebSocket pings (the first at connect; no pong by the third closes); HTTP connections idle 2 intervals close"},
    {"neg-idle-timeout", "BUZZ_NEG_IDLE_TIMEOUT_SECS", "60",
     "seconds a NIP-77 reconciliation (NEG-OPEN) may wait for its next NEG-MSG before it is closed with NEG-ERR"},
    {"neg-max-events", "BUZZ_NEG_MAX_EVENTS", "2000000",
     "events one NIP-77 reconciliation may cover (40 bytes each in memory); a bigger set gets NEG-ERR blocked"},
    {"reconcile-channels", "BUZZ_RECONCILE_CHANNELS", "false",
     "at start-up, give each channel without group state its 39000-39002 (after importing a database); set = on, as the original"},
    {"reaper-interval", "BUZZ_REAPER_INTERVAL_SECS", "60", "seconds between runs of the ephemeral-channel (TTL) reaper"},
    {"delivery-retention-days", "BUZZ_DELIVERY_RETENTION_DAYS", "30",
     "days of channel messages whose deliveries are kept for receipts (<data-dir>/deliveries); 0 = none recorded"},
    {"ephemeral-ttl-override", "BUZZ_EPHEMERAL_TTL_OVERRIDE", "",
     "seconds that replace the ttl of every channel created with one (a testing aid); unset = as sent"},
    {"mint-rate-limit", "BUZZ_MINT_RATE_LIMIT", "50", "API tokens one pubkey may mint per hour"},
    {"rate-limits", "BUZZ_RATE_LIMITS", "true", "enforce the per-tier limits below (false: only the mint limit)"},
    {"human-messages-per-min", "BUZZ_HUMAN_MESSAGES_PER_MIN", "60",
     "messages (kinds 1, 7, 9, 40002-40008, 45001-45003) one human may send per minute, after a burst of twice as many; 0 = no limit"},
    {"human-api-calls-per-min", "BUZZ_HUMAN_API_CALLS_PER_MIN", "300", "HTTP API calls per human pubkey per minute; 0 = no limit"},
    {"human-ws-events-per-sec", "BUZZ_HUMAN_WS_EVENTS_PER_SEC", "10",
     "EVENT frames per human connection per second, sustained; 0 = no limit"},
    {"human-ws-events-burst", "BUZZ_HUMAN_WS_EVENTS_BURST", "100",
     "EVENT frames a human connection may send at once before the per-second rate applies (a token bucket; at least that rate)"},
    {"human-reads-per-sec", "BUZZ_HUMAN_READS_PER_SEC", "20",
     "read units per human connection per second, sustained: a REQ, COUNT or NEG frame is one, plus one per 100 events a replay sends; 0 = no limit"},
    {"human-reads-burst", "BUZZ_HUMAN_READS_BURST", "1100",
     "read units a human connection may spend at once (at least max_subscriptions, so a client opens all its subscriptions at connect)"},
    {"agent-standard-messages-per-min", "BUZZ_AGENT_STANDARD_MESSAGES_PER_MIN", "120",
     "messages per minute for agents (a 10100 agent_type or an owner link)"},
    {"agent-standard-api-calls-per-min", "BUZZ_AGENT_STANDARD_API_CALLS_PER_MIN", "600", "API calls per minute for agents"},
    {"agent-elevated-messages-per-min", "BUZZ_AGENT_ELEVATED_MESSAGES_PER_MIN", "300",
     "messages per minute for the agent-elevated tier (no API or frame limit)"},
    {"agent-platform-messages-per-min", "BUZZ_AGENT_PLATFORM_MESSAGES_PER_MIN", "600",
     "messages per minute for the agent-platform tier (no API or frame limit)"},
    {"rate-limit-tiers", "BUZZ_RATE_LIMIT_TIERS", "",
     "tiers the operator assigns: HEX_PUBKEY=TIER,... (human, agent-standard, agent-elevated, agent-platform)"},
    {"pubsub", "REDIS_URL", "",
     "redis://[:password@]host[:port][/db]: run as one of several nodes sharing this Redis for fan-out, presence and rate limits; unset = a lone node"},
    {"cors-origins", "BUZZ_CORS_ORIGINS", "", "browser origins allowed to call the API (comma list); empty = any"},
    {"log-level", "BUZZ_LOG", "info", "debug, info, warn or error"},
    {"require-auth-token", "BUZZ_REQUIRE_AUTH_TOKEN", "",
     "true: media uploads need an API token (X-Auth-Token); unset: they do not; false (set explicitly): the original's "
     "development mode, also an unsigned X-Pubkey header on the HTTP bridge and REST, on a loopback bind only"},
    {"media-base-url", "BUZZ_MEDIA_BASE_URL", "<relay-url as http(s)>/media",
     "public URL of /media, used in upload descriptors"},
    {"media-server-domain", "BUZZ_MEDIA_SERVER_DOMAIN", "<relay-url host[:port]>",
     "the server that Blossom auth `server` tags must name"},
    {"max-image-bytes", "BUZZ_MAX_IMAGE_BYTES", "52428800", "largest image upload (JPEG, PNG, WebP)"},
    {"max-gif-bytes", "BUZZ_MAX_GIF_BYTES", "10485760", "largest GIF upload; at most max-image-bytes"},
    {"max-file-bytes", "BUZZ_MAX_FILE_BYTES", "104857600",
     "largest upload of any other file type (PDF, archives, audio, ...)"},
    {"max-video-bytes", "BUZZ_MAX_VIDEO_BYTES", "524288000",
     "largest video upload (H.264 MP4, sent with a video/* Content-Type; streamed to disk)"},
    {"upload-bytes-in-flight", "BUZZ_UPLOAD_BYTES_IN_FLIGHT", "2147483648",
     "bytes of upload bodies admitted and not yet answered (a chunked one counts its limit); more are refused with 503; 0 = no bound"},
    {"upload-bytes-per-pubkey", "BUZZ_UPLOAD_BYTES_PER_PUBKEY", "1073741824",
     "the same per uploading pubkey; more are refused with 429; 0 = no bound"},
    {"min-upload-rate", "BUZZ_MIN_UPLOAD_BYTES_PER_SEC", "4096",
     "bytes per second an upload body over 256 KiB must keep up, over each ping interval; slower is refused with 408; 0 = none"},
    {"workflow-max-concurrent", "BUZZ_WORKFLOW_MAX_CONCURRENT", "100",
     "workflow runs executing at once; a run triggered beyond it fails with \"capacity exceeded\""},
    {"workflow-tick", "BUZZ_WORKFLOW_TICK_SECS", "60",
     "seconds between runs of the workflow scheduler (cron, interval, approval expiry); lower only for tests"},
    {"workflow-webhook-allow-hosts", "BUZZ_WORKFLOW_WEBHOOK_ALLOW_HOSTS", "",
     "comma list of internal hosts call_webhook may reach despite the SSRF rules (exact host, e.g. 127.0.0.1)"},
    // Native TLS (docs/tls.md).
    {"tls-cert", "BUZZ_TLS_CERT", "",
     "PEM certificate chain (leaf first): the port serves wss:// and https:// itself; SIGHUP reloads it; needs tls-key"},
    {"tls-key", "BUZZ_TLS_KEY", "", "PEM private key of tls-cert"},
    // NIP-11, from the operator; NIP-86's changerelayname / …description / …icon override the first three.
    {"relay-name", "BUZZ_RELAY_NAME", "Buzz Relay", "NIP-11 name"},
    {"relay-description", "BUZZ_RELAY_DESCRIPTION", "Buzz — private team communication relay", "NIP-11 description"},
    {"relay-icon", "BUZZ_RELAY_ICON", "", "NIP-11 icon: an image URL"},
    {"relay-banner", "BUZZ_RELAY_BANNER", "", "NIP-11 banner: an image URL"},
    {"relay-contact", "BUZZ_RELAY_CONTACT", "", "NIP-11 contact: a mailto: or https: URI"},
    {"relay-terms-of-service", "BUZZ_RELAY_TERMS_OF_SERVICE", "", "NIP-11 terms_of_service: a URL"},
    {"relay-operator-pubkey", "BUZZ_RELAY_OPERATOR_PUBKEY", "<owner>", "NIP-11 pubkey: the operator's hex pubkey"},
};

Error bad(const std::string& key, const char* source, const std::string& value, const std::string& expected) {
  return Error{"config: " + key + " (" + source + ") = '" + value + "': expected " + expected};
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

// The per-tier count a rate-limit key sets, or null for any other key.
uint32_t* rate_limit_field(RateLimitConfig* r, const std::string& key) {
  const auto human = size_t(Tier::kHuman), standard = size_t(Tier::kAgentStandard);
  if (key == "human-messages-per-min") return &r->messages_per_min[human];
  if (key == "human-api-calls-per-min") return &r->api_calls_per_min[human];
  if (key == "human-ws-events-per-sec") return &r->human_ws_events_per_sec;
  if (key == "human-ws-events-burst") return &r->human_ws_events_burst;
  if (key == "human-reads-per-sec") return &r->human_reads_per_sec;
  if (key == "human-reads-burst") return &r->human_reads_burst;
  if (key == "agent-standard-messages-per-min") return &r->messages_per_min[standard];
  if (key == "agent-standard-api-calls-per-min") return &r->api_calls_per_min[standard];
  if (key == "agent-elevated-messages-per-min") return &r->messages_per_min[size_t(Tier::kAgentElevated)];
  if (key == "agent-platform-messages-per-min") return &r->messages_per_min[size_t(Tier::kAgentPlatform)];
  return nullptr;
}

}  // namespace

const std::vector<ConfigKey>& config_keys() { return kKeys; }

std::string Config::effective_relay_url() const {
  if (!relay_url.empty()) return relay_url;
  return (tls_cert.empty() ? "ws://localhost:" : "wss://localhost:") + std::to_string(bind_port);
}

Status set_config(Config* c, const std::string& key, const std::string& v, const char* source) {
  int64_t n;
  if (key == "data-dir") {
    if (v.empty()) return bad(key, source, v, "a directory path");
    c->data_dir = v;
  } else if (key == "store") {
    if (!v.empty() && v.rfind("postgres://", 0) != 0 && v.rfind("postgresql://", 0) != 0) {
      // Only the scheme: the rest may hold a password.
      return bad(key, source, v.substr(0, v.find("://")) + "://…", "postgres://USER:PASS@HOST:PORT/DB, or unset for the embedded store");
    }
    c->store = v;
  } else if (key == "bind") {
    size_t colon = v.rfind(':');
    if (colon == std::string::npos || !parse_int(v.substr(colon + 1), 0, 65535, &n)) {
      return bad(key, source, v, "HOST:PORT, e.g. 0.0.0.0:3000");
    }
    c->bind_host = v.substr(0, colon);
    if (c->bind_host == "localhost") c->bind_host = "127.0.0.1";
    c->bind_port = uint16_t(n);
  } else if (key == "health-port" || key == "metrics-port") {
    if (!parse_int(v, 1, 65535, &n)) return bad(key, source, v, "a port from 1 to 65535");
    (key == "health-port" ? c->health_port : c->metrics_port) = uint16_t(n);
  } else if (key == "relay-url") {
    if (v.rfind("ws://", 0) != 0 && v.rfind("wss://", 0) != 0) return bad(key, source, v, "a ws:// or wss:// URL");
    c->relay_url = v;
  } else if (key == "owner" || key == "relay-operator-pubkey") {
    engine::Pubkey pk;
    size_t b = v.find_first_not_of(" \t\r\n"), e = v.find_last_not_of(" \t\r\n");
    std::string trimmed = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    if (!engine::from_hex_any_case(trimmed, pk.data(), pk.size())) return bad(key, source, v, "64 hex characters");
    (key == "owner" ? c->owner : c->relay_operator) = pk;
  } else if (key.starts_with("relay-") && key != "relay-url" && key != "relay-private-key") {
    if (v.size() > 4096) return bad(key, source, v.substr(0, 32) + "…", "at most 4096 bytes");
    if (key == "relay-name") c->relay_name = v;
    else if (key == "relay-description") c->relay_description = v;
    else if (key == "relay-icon") c->relay_icon = v;
    else if (key == "relay-banner") c->relay_banner = v;
    else if (key == "relay-contact") c->relay_contact = v;
    else if (key == "relay-terms-of-service") c->relay_terms_of_service = v;
    else return Error{"config: unknown key '" + key + "' (" + source + "); see buzz serve --help"};
  } else if (key == "pubkey-allowlist") {
    if (!parse_bool(v, &c->pubkey_allowlist)) return bad(key, source, v, "true or false");
  } else if (key == "reconcile-channels") {
    // The original turns it on by the variable's presence, whatever its value.
    if (!parse_bool(v, &c->reconcile_channels)) c->reconcile_channels = true;
  } else if (key == "allow-nip-oa-auth") {
    if (!parse_bool(v, &c->allow_nip_oa_auth)) return bad(key, source, v, "true or false");
  } else if (key == "require-membership") {
    if (!parse_bool(v, &c->require_membership)) return bad(key, source, v, "true or false");
  } else if (key == "relay-private-key") {
    uint8_t sk[32];
    if (!engine::from_hex_any_case(v, sk, 32)) return bad(key, source, "<hidden>", "64 hex characters");
    c->relay_private_key = v;
  } else if (key == "max-connections" || key == "max-concurrent-handlers" || key == "send-buffer" || key == "audit-queue" ||
             key == "search-queue" || key == "reaper-interval" || key == "mint-rate-limit") {
    if (!parse_int(v, 1, 10'000'000, &n)) return bad(key, source, v, "a positive integer");
    (key == "max-connections"   ? c->max_connections
     : key == "send-buffer"     ? c->send_buffer
     : key == "audit-queue"     ? c->audit_queue
     : key == "search-queue"    ? c->search_queue
     : key == "reaper-interval" ? c->reaper_interval
     : key == "mint-rate-limit" ? c->mint_rate_limit
                                : c->max_concurrent_handlers) = n;
  } else if (key == "max-unauthenticated-per-address" || key == "max-connections-per-pubkey" ||
             key == "min-upload-rate") {
    if (!parse_int(v, 0, 10'000'000, &n)) return bad(key, source, v, "a count from 0 (no limit) to 10000000");
    (key == "max-unauthenticated-per-address" ? c->max_unauthenticated_per_address
     : key == "max-connections-per-pubkey"    ? c->max_connections_per_pubkey
                                              : c->min_upload_rate) = n;
  } else if (key == "shutdown-timeout") {
    if (!parse_int(v, 0, 3600, &n)) return bad(key, source, v, "seconds from 0 (cut at once) to 3600");
    c->shutdown_timeout = n;
  } else if (key == "delivery-retention-days") {
    if (!parse_int(v, 0, 3650, &n)) return bad(key, source, v, "days from 0 (none recorded) to 3650");
    c->delivery_retention_days = n;
  } else if (key == "auth-timeout") {
    if (!parse_int(v, 0, 3600, &n)) return bad(key, source, v, "seconds from 0 (no deadline) to 3600");
    c->auth_timeout = n;
  } else if (key == "send-buffer-bytes" || key == "send-memory-bytes" || key == "upload-bytes-in-flight" ||
             key == "upload-bytes-per-pubkey") {
    const int64_t lo = key == "send-buffer-bytes" ? 65536 : 0;
    if (!parse_int(v, lo, int64_t(1) << 40, &n)) return bad(key, source, v, "bytes from " + std::to_string(lo) + " to 2^40");
    (key == "send-buffer-bytes"         ? c->send_buffer_bytes
     : key == "send-memory-bytes"       ? c->send_memory_bytes
     : key == "upload-bytes-in-flight"  ? c->upload_bytes_in_flight
                                        : c->upload_bytes_per_pubkey) = n;
  } else if (key == "max-message-bytes") {
    if (!parse_int(v, 16384, 16 << 20, &n)) return bad(key, source, v, "bytes from 16384 to 16777216");
    c->max_message_bytes = n;
  } else if (key == "rate-limits") {
    if (!parse_bool(v, &c->rate_limits.enabled)) return bad(key, source, v, "true or false");
  } else if (uint32_t* limit = rate_limit_field(&c->rate_limits, key)) {
    if (!parse_int(v, 0, 100'000'000, &n)) return bad(key, source, v, "a count from 0 (no limit) to 100000000");
    *limit = uint32_t(n);
  } else if (key == "rate-limit-tiers") {
    if (Status s = parse_tier_assignments(v, &c->rate_limits.assigned); !s) {
      return Error{"config: " + key + " (" + source + "): " + s.error()};
    }
  } else if (key == "ephemeral-ttl-override") {
    if (!parse_int(v, 1, INT32_MAX, &n)) return bad(key, source, v, "a positive number of seconds");
    c->ephemeral_ttl_override = n;
  } else if (key == "neg-idle-timeout") {
    if (!parse_int(v, 1, 86400, &n)) return bad(key, source, v, "seconds between 1 and 86400");
    c->neg_idle_timeout = n;
  } else if (key == "neg-max-events") {
    if (!parse_int(v, 1, 100'000'000, &n)) return bad(key, source, v, "a count from 1 to 100000000");
    c->neg_max_events = n;
  } else if (key == "ping-interval") {
    if (!parse_int(v, 1, 3600, &n)) return bad(key, source, v, "seconds between 1 and 3600");
    c->ping_interval = n;
  } else if (key == "max-image-bytes" || key == "max-gif-bytes" || key == "max-file-bytes" || key == "max-video-bytes") {
    if (!parse_int(v, 1, int64_t(1) << 40, &n)) return bad(key, source, v, "a positive number of bytes");
    (key == "max-image-bytes" ? c->max_image_bytes
     : key == "max-gif-bytes" ? c->max_gif_bytes
     : key == "max-file-bytes" ? c->max_file_bytes
                               : c->max_video_bytes) = n;
  } else if (key == "require-auth-token") {
    if (!parse_bool(v, &c->require_auth_token)) return bad(key, source, v, "true or false");
    c->pubkey_header_auth = !c->require_auth_token;
  } else if (key == "media-base-url") {
    bool http = v.starts_with("http://") || v.starts_with("https://");
    if (!http || !v.ends_with("/media")) {
      return bad(key, source, v, "an http(s) URL ending in /media, e.g. https://buzz.example.com/media");
    }
    c->media_base_url = v;
  } else if (key == "media-server-domain") {
    c->media_server_domain = v;
  } else if (key == "threads") {
    if (!parse_int(v, 0, 256, &n)) return bad(key, source, v, "an integer from 0 to 256");
    c->threads = int(n);
  } else if (key == "block-cache-mib") {
    if (!parse_int(v, 1, 1 << 20, &n)) return bad(key, source, v, "MiB from 1 to 1048576");
    c->block_cache_mib = n;
  } else if (key == "sync-writes") {
    if (!parse_bool(v, &c->sync_writes)) return bad(key, source, v, "true or false");
  } else if (key == "workflow-max-concurrent") {
    if (!parse_int(v, 1, 10000, &n)) return bad(key, source, v, "an integer from 1 to 10000");
    c->workflow_max_concurrent = n;
  } else if (key == "workflow-tick") {
    if (!parse_int(v, 1, 3600, &n)) return bad(key, source, v, "seconds between 1 and 3600");
    c->workflow_tick = n;
  } else if (key == "workflow-webhook-allow-hosts") {
    c->workflow_webhook_allow_hosts.clear();
    size_t start = 0;
    while (start <= v.size()) {
      size_t comma = v.find(',', start);
      std::string host = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      size_t b = host.find_first_not_of(" \t"), e = host.find_last_not_of(" \t");
      if (b != std::string::npos) c->workflow_webhook_allow_hosts.push_back(host.substr(b, e - b + 1));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else if (key == "pubsub") {
    if (!v.empty()) {
      if (auto url = migrate::parse_redis_url(v); !url) return bad(key, source, v, "redis://[:password@]host[:port][/db]");
    }
    c->pubsub_url = v;
  } else if (key == "tls-cert" || key == "tls-key") {
    (key == "tls-cert" ? c->tls_cert : c->tls_key) = v;
  } else if (key == "cors-origins") {
    c->cors_origins = v;
  } else if (key == "log-level") {
    if (v != "debug" && v != "info" && v != "warn" && v != "error") return bad(key, source, v, "debug, info, warn or error");
    c->log_level = v;
  } else {
    return Error{"config: unknown key '" + key + "' (" + source + "); see buzz serve --help"};
  }
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
