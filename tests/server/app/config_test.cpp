// Unit tests for server/config: every key of the table set from text (valid
// values, the exact error for a bad one, secrets never echoed), the YAML file
// source (snake_case keys, non-mapping and nested values refused), the
// environment source with the original variable names, the rules between
// keys (check_config), and the key table's own invariants (unique names and
// env vars, every key settable).
// docs/reference/protocol.md §7.1 and §18 give the names and the owner-key rule.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "engine/hex.h"
#include "server/app/config.h"

namespace buzz::server {
namespace {

const std::string kOwner = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";

std::string set_error(Config* c, const std::string& key, const std::string& value) {
  engine::Status s = set_config(c, key, value, "test");
  return s.ok() ? std::string("<ok>") : s.error();
}

TEST(Config, Defaults) {
  Config c;
  EXPECT_EQ(c.data_dir, "./data");
  EXPECT_EQ(c.bind_host, "0.0.0.0");
  EXPECT_EQ(c.bind_port, 3000);
  EXPECT_EQ(c.relay_url, "");
  EXPECT_EQ(c.effective_relay_url(), "ws://localhost:3000");
  EXPECT_FALSE(c.owner);
  EXPECT_EQ(c.max_connections, 10000);
  EXPECT_EQ(c.max_concurrent_handlers, 1024);
  EXPECT_EQ(c.send_buffer, 1000);
  EXPECT_EQ(c.threads, 0);
  EXPECT_TRUE(c.sync_writes);  // durable by default (issue 20)
  EXPECT_EQ(c.log_level, "info");
}

TEST(Config, EffectiveRelayUrlFollowsThePort) {
  Config c;
  ASSERT_EQ(set_error(&c, "bind", "127.0.0.1:4000"), "<ok>");
  EXPECT_EQ(c.effective_relay_url(), "ws://localhost:4000");
  ASSERT_EQ(set_error(&c, "relay-url", "wss://relay.example.com"), "<ok>");
  EXPECT_EQ(c.effective_relay_url(), "wss://relay.example.com");
}

TEST(Config, DataDir) {
  Config c;
  EXPECT_EQ(set_error(&c, "data-dir", "/var/lib/buzz"), "<ok>");
  EXPECT_EQ(c.data_dir, "/var/lib/buzz");
  EXPECT_EQ(set_error(&c, "data-dir", ""), "config: data-dir (test) = '': expected a directory path");
}

TEST(Config, Bind) {
  Config c;
  EXPECT_EQ(set_error(&c, "bind", "10.0.0.1:8080"), "<ok>");
  EXPECT_EQ(c.bind_host, "10.0.0.1");
  EXPECT_EQ(c.bind_port, 8080);
  EXPECT_EQ(set_error(&c, "bind", "localhost:1"), "<ok>");
  EXPECT_EQ(c.bind_host, "127.0.0.1");
  EXPECT_EQ(c.bind_port, 1);
  const std::string expected = "expected HOST:PORT, e.g. 0.0.0.0:3000";
  for (const char* bad : {"3000", "host:", "host:65536", "host:-1", "host:80x", "host: 80"}) {
    EXPECT_EQ(set_error(&c, "bind", bad), std::string("config: bind (test) = '") + bad + "': " + expected) << bad;
  }
  EXPECT_EQ(c.bind_host, "127.0.0.1");  // a failed set leaves the old value
  EXPECT_EQ(c.bind_port, 1);
}

TEST(Config, SidePorts) {
  Config c;
  EXPECT_EQ(c.health_port, 0);  // off unless set
  EXPECT_EQ(c.metrics_port, 0);
  EXPECT_EQ(set_error(&c, "health-port", "8080"), "<ok>");
  EXPECT_EQ(set_error(&c, "metrics-port", "9102"), "<ok>");
  EXPECT_EQ(c.health_port, 8080);
  EXPECT_EQ(c.metrics_port, 9102);
  for (const char* bad : {"0", "65536", "http", "80x", ""}) {
    EXPECT_EQ(set_error(&c, "metrics-port", bad),
              std::string("config: metrics-port (test) = '") + bad + "': expected a port from 1 to 65535")
        << bad;
  }
  EXPECT_TRUE(check_config(c).ok());
  ASSERT_EQ(set_error(&c, "bind", "127.0.0.1:9102"), "<ok>");
  engine::Status clash = check_config(c);
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.error(), "config: health-port and metrics-port must differ from the bind port (9102)");
}

TEST(Config, RelayUrlMustBeWebSocket) {
  Config c;
  EXPECT_EQ(set_error(&c, "relay-url", "ws://localhost:3000"), "<ok>");
  EXPECT_EQ(set_error(&c, "relay-url", "wss://r.example"), "<ok>");
  EXPECT_EQ(c.relay_url, "wss://r.example");
  EXPECT_EQ(set_error(&c, "relay-url", "https://r.example"),
            "config: relay-url (test) = 'https://r.example': expected a ws:// or wss:// URL");
  EXPECT_NE(set_error(&c, "relay-url", "r.example"), "<ok>");
}

TEST(Config, OwnerIsHexInEitherCase) {
  Config c;
  EXPECT_EQ(set_error(&c, "owner", kOwner), "<ok>");
  ASSERT_TRUE(c.owner);
  EXPECT_EQ(engine::to_hex(*c.owner), kOwner);
  std::string upper = kOwner;
  for (char& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  Config c2;
  EXPECT_EQ(set_error(&c2, "owner", upper), "<ok>");
  ASSERT_TRUE(c2.owner);
  EXPECT_EQ(engine::to_hex(*c2.owner), kOwner);
  EXPECT_EQ(set_error(&c2, "owner", "abc"), "config: owner (test) = 'abc': expected 64 hex characters");
}

TEST(Config, OwnerIsTrimmed) {
  // docs/reference/protocol.md §7.1: RELAY_OWNER_PUBKEY is "hex64 (trimmed, lowercased)".
  Config c;
  EXPECT_EQ(set_error(&c, "owner", "  " + kOwner + "\n"), "<ok>");
  ASSERT_TRUE(c.owner);
  EXPECT_EQ(engine::to_hex(*c.owner), kOwner);
}

TEST(Config, Booleans) {
  for (const char* key : {"require-membership", "sync-writes"}) {
    Config c;
    for (const char* t : {"true", "1", "yes", "on"}) {
      c.require_membership = false;
      c.sync_writes = false;
      EXPECT_EQ(set_error(&c, key, t), "<ok>");
      EXPECT_TRUE(std::string(key) == "sync-writes" ? c.sync_writes : c.require_membership) << key << "=" << t;
    }
    for (const char* f : {"false", "0", "no", "off"}) {
      c.require_membership = true;
      c.sync_writes = true;
      EXPECT_EQ(set_error(&c, key, f), "<ok>");
      EXPECT_FALSE(std::string(key) == "sync-writes" ? c.sync_writes : c.require_membership) << key << "=" << f;
    }
    EXPECT_EQ(set_error(&c, key, "maybe"), std::string("config: ") + key + " (test) = 'maybe': expected true or false");
  }
}

TEST(Config, RelayPrivateKeyIsNeverEchoed) {
  Config c;
  std::string secret(64, 'a');
  EXPECT_EQ(set_error(&c, "relay-private-key", secret), "<ok>");
  EXPECT_EQ(c.relay_private_key, secret);
  std::string bad = "deadbeefsecret";
  std::string err = set_error(&c, "relay-private-key", bad);
  EXPECT_EQ(err, "config: relay-private-key (test) = '<hidden>': expected 64 hex characters");
  EXPECT_EQ(err.find(bad), std::string::npos);
}

TEST(Config, PositiveIntegers) {
  for (const char* key : {"max-connections", "max-concurrent-handlers", "send-buffer"}) {
    Config c;
    EXPECT_EQ(set_error(&c, key, "1"), "<ok>");
    EXPECT_EQ(set_error(&c, key, "10000000"), "<ok>");
    int64_t value = std::string(key) == "max-connections"   ? c.max_connections
                    : std::string(key) == "send-buffer"     ? c.send_buffer
                                                            : c.max_concurrent_handlers;
    EXPECT_EQ(value, 10000000) << key;
    for (const char* bad : {"0", "-1", "10000001", "1.5", "ten", ""}) {
      EXPECT_EQ(set_error(&c, key, bad),
                std::string("config: ") + key + " (test) = '" + bad + "': expected a positive integer")
          << key << "=" << bad;
    }
  }
  Config c;
  ASSERT_EQ(set_error(&c, "send-buffer", "5"), "<ok>");
  EXPECT_EQ(c.send_buffer, 5);
  EXPECT_EQ(c.max_connections, 10000);
  EXPECT_EQ(c.max_concurrent_handlers, 1024);
}

TEST(Config, Threads) {
  Config c;
  EXPECT_EQ(set_error(&c, "threads", "0"), "<ok>");
  EXPECT_EQ(set_error(&c, "threads", "256"), "<ok>");
  EXPECT_EQ(c.threads, 256);
  EXPECT_EQ(set_error(&c, "threads", "257"), "config: threads (test) = '257': expected an integer from 0 to 256");
  EXPECT_NE(set_error(&c, "threads", "-1"), "<ok>");
}

TEST(Config, BlockCache) {
  Config c;
  EXPECT_EQ(c.block_cache_mib, 256);
  EXPECT_EQ(set_error(&c, "block-cache-mib", "16"), "<ok>");
  EXPECT_EQ(c.block_cache_mib, 16);
  EXPECT_EQ(set_error(&c, "block-cache-mib", "0"), "config: block-cache-mib (test) = '0': expected MiB from 1 to 1048576");
  EXPECT_NE(set_error(&c, "block-cache-mib", "16M"), "<ok>");
  EXPECT_EQ(c.block_cache_mib, 16);
}

TEST(Config, SearchQueue) {
  Config c;
  EXPECT_EQ(c.search_queue, 8192);
  EXPECT_EQ(set_error(&c, "search-queue", "16"), "<ok>");
  EXPECT_EQ(c.search_queue, 16);
  EXPECT_EQ(c.audit_queue, 65536);  // its own field, not a neighbour's
  EXPECT_EQ(set_error(&c, "search-queue", "0"), "config: search-queue (test) = '0': expected a positive integer");
  EXPECT_EQ(c.search_queue, 16);
}

TEST(Config, MaxMessageBytes) {
  Config c;
  EXPECT_EQ(c.max_message_bytes, 131072);
  EXPECT_EQ(set_error(&c, "max-message-bytes", "65536"), "<ok>");
  EXPECT_EQ(c.max_message_bytes, 65536);
  EXPECT_EQ(set_error(&c, "max-message-bytes", "16383"),
            "config: max-message-bytes (test) = '16383': expected bytes from 16384 to 16777216");
  EXPECT_NE(set_error(&c, "max-message-bytes", "16777217"), "<ok>");
  EXPECT_EQ(c.max_message_bytes, 65536);
}

TEST(Config, PingInterval) {
  Config c;
  EXPECT_EQ(c.ping_interval, 30);
  EXPECT_EQ(set_error(&c, "ping-interval", "1"), "<ok>");
  EXPECT_EQ(set_error(&c, "ping-interval", "3600"), "<ok>");
  EXPECT_EQ(c.ping_interval, 3600);
  EXPECT_EQ(set_error(&c, "ping-interval", "0"), "config: ping-interval (test) = '0': expected seconds between 1 and 3600");
  EXPECT_NE(set_error(&c, "ping-interval", "3601"), "<ok>");
  EXPECT_NE(set_error(&c, "ping-interval", "30s"), "<ok>");
}

TEST(Config, LogLevel) {
  Config c;
  for (const char* level : {"debug", "info", "warn", "error"}) {
    EXPECT_EQ(set_error(&c, "log-level", level), "<ok>");
    EXPECT_EQ(c.log_level, level);
  }
  EXPECT_EQ(set_error(&c, "log-level", "trace"),
            "config: log-level (test) = 'trace': expected debug, info, warn or error");
}

TEST(Config, Media) {
  Config c;
  EXPECT_FALSE(c.require_auth_token);
  EXPECT_EQ(c.media_base_url, "");
  EXPECT_EQ(c.media_server_domain, "");
  EXPECT_EQ(c.max_image_bytes, 52428800);
  EXPECT_EQ(c.max_gif_bytes, 10485760);
  EXPECT_TRUE(check_config(c).ok());

  EXPECT_EQ(set_error(&c, "require-auth-token", "true"), "<ok>");
  EXPECT_TRUE(c.require_auth_token);
  EXPECT_EQ(set_error(&c, "media-base-url", "https://buzz.example.com/media"), "<ok>");
  EXPECT_EQ(c.media_base_url, "https://buzz.example.com/media");
  for (const char* bad : {"https://buzz.example.com/media/", "https://buzz.example.com", "/media", "ftp://x/media"}) {
    EXPECT_EQ(set_error(&c, "media-base-url", bad),
              std::string("config: media-base-url (test) = '") + bad +
                  "': expected an http(s) URL ending in /media, e.g. https://buzz.example.com/media");
  }
  EXPECT_EQ(set_error(&c, "media-server-domain", "media.example.com"), "<ok>");
  EXPECT_EQ(c.media_server_domain, "media.example.com");

  EXPECT_EQ(set_error(&c, "max-image-bytes", "1000"), "<ok>");
  EXPECT_EQ(c.max_image_bytes, 1000);
  EXPECT_EQ(set_error(&c, "max-gif-bytes", "0"), "config: max-gif-bytes (test) = '0': expected a positive number of bytes");
  EXPECT_EQ(check_config(c).error(), "config: max-gif-bytes (10485760) must not exceed max-image-bytes (1000)");
  EXPECT_EQ(set_error(&c, "max-gif-bytes", "1000"), "<ok>");
  EXPECT_TRUE(check_config(c).ok());
}

// The original's X-Pubkey development mode: only require-auth-token set to
// false, and only on a loopback bind (docs/reference/rest-api.md §1.4).
TEST(Config, PubkeyHeaderAuthNeedsFalseSetExplicitlyAndALoopbackBind) {
  Config c;
  EXPECT_FALSE(c.pubkey_header_auth);  // unset: refused
  EXPECT_EQ(set_error(&c, "require-auth-token", "true"), "<ok>");
  EXPECT_FALSE(c.pubkey_header_auth);
  EXPECT_EQ(set_error(&c, "require-auth-token", "false"), "<ok>");
  EXPECT_TRUE(c.pubkey_header_auth);
  EXPECT_NE(check_config(c).error().find("honoured only on a loopback bind"), std::string::npos);  // 0.0.0.0
  for (const char* bind : {"127.0.0.1:3000", "localhost:3000", "127.0.0.2:3000"}) {
    EXPECT_EQ(set_error(&c, "bind", bind), "<ok>") << bind;
    EXPECT_TRUE(check_config(c).ok()) << bind;
  }
  EXPECT_EQ(set_error(&c, "bind", "192.168.1.5:3000"), "<ok>");
  EXPECT_FALSE(check_config(c).ok());
  EXPECT_EQ(set_error(&c, "require-auth-token", "true"), "<ok>");  // a later source wins
  EXPECT_TRUE(check_config(c).ok());
}

TEST(Config, EphemeralTtlOverride) {
  Config c;
  EXPECT_EQ(c.ephemeral_ttl_override, 0);
  EXPECT_EQ(set_error(&c, "ephemeral-ttl-override", "5"), "<ok>");
  EXPECT_EQ(c.ephemeral_ttl_override, 5);
  EXPECT_EQ(set_error(&c, "ephemeral-ttl-override", "0"),
            "config: ephemeral-ttl-override (test) = '0': expected a positive number of seconds");
  EXPECT_NE(set_error(&c, "ephemeral-ttl-override", "2147483648"), "<ok>");
}

TEST(Config, RateLimits) {
  Config c;
  const RateLimitConfig& r = c.rate_limits;
  // The tiers of docs/reference/compat-backends.md §5; 0 is "no limit".
  EXPECT_TRUE(r.enabled);
  EXPECT_EQ(r.messages_per_min, (std::array<uint32_t, kTierCount>{60, 120, 300, 600}));
  EXPECT_EQ(r.api_calls_per_min, (std::array<uint32_t, kTierCount>{300, 600, 0, 0}));
  EXPECT_EQ(r.human_ws_events_per_sec, 10u);
  EXPECT_EQ(r.human_ws_events_burst, 100u);
  EXPECT_EQ(r.human_reads_per_sec, 20u);
  EXPECT_EQ(r.human_reads_burst, 1100u);
  EXPECT_TRUE(r.assigned.empty());

  EXPECT_EQ(set_error(&c, "rate-limits", "false"), "<ok>");
  EXPECT_FALSE(r.enabled);
  EXPECT_EQ(set_error(&c, "human-messages-per-min", "5"), "<ok>");
  EXPECT_EQ(set_error(&c, "human-api-calls-per-min", "0"), "<ok>");
  EXPECT_EQ(set_error(&c, "human-ws-events-per-sec", "7"), "<ok>");
  EXPECT_EQ(set_error(&c, "human-ws-events-burst", "21"), "<ok>");
  EXPECT_EQ(set_error(&c, "human-reads-per-sec", "8"), "<ok>");
  EXPECT_EQ(set_error(&c, "human-reads-burst", "22"), "<ok>");
  EXPECT_EQ(set_error(&c, "agent-standard-messages-per-min", "11"), "<ok>");
  EXPECT_EQ(set_error(&c, "agent-standard-api-calls-per-min", "12"), "<ok>");
  EXPECT_EQ(set_error(&c, "agent-elevated-messages-per-min", "13"), "<ok>");
  EXPECT_EQ(set_error(&c, "agent-platform-messages-per-min", "14"), "<ok>");
  EXPECT_EQ(r.messages_per_min, (std::array<uint32_t, kTierCount>{5, 11, 13, 14}));
  EXPECT_EQ(r.api_calls_per_min, (std::array<uint32_t, kTierCount>{0, 12, 0, 0}));
  EXPECT_EQ(r.human_ws_events_per_sec, 7u);
  EXPECT_EQ(r.human_ws_events_burst, 21u);
  EXPECT_EQ(r.human_reads_per_sec, 8u);
  EXPECT_EQ(r.human_reads_burst, 22u);
  EXPECT_EQ(set_error(&c, "human-messages-per-min", "-1"),
            "config: human-messages-per-min (test) = '-1': expected a count from 0 (no limit) to 100000000");
  EXPECT_NE(set_error(&c, "human-ws-events-per-sec", "100000001"), "<ok>");

  EXPECT_EQ(set_error(&c, "rate-limit-tiers", kOwner + "=agent-platform, " + std::string(64, 'a') + " = human"), "<ok>");
  ASSERT_EQ(r.assigned.size(), 2u);
  engine::Pubkey owner;
  ASSERT_TRUE(engine::from_hex_any_case(kOwner, owner.data(), owner.size()));
  EXPECT_EQ(r.assigned.at(owner), Tier::kAgentPlatform);
  EXPECT_EQ(set_error(&c, "rate-limit-tiers", kOwner + "=root"),
            "config: rate-limit-tiers (test): '" + kOwner +
                "=root' is not HEX_PUBKEY=TIER (tiers: human, agent-standard, agent-elevated, agent-platform)");
  EXPECT_NE(set_error(&c, "rate-limit-tiers", "abc=human"), "<ok>");
  EXPECT_NE(set_error(&c, "rate-limit-tiers", kOwner), "<ok>");
  EXPECT_EQ(set_error(&c, "rate-limit-tiers", ""), "<ok>");
  EXPECT_TRUE(r.assigned.empty());
}

TEST(Config, UnknownKey) {
  Config c;
  EXPECT_EQ(set_error(&c, "nope", "1"), "config: unknown key 'nope' (test); see buzz serve --help");
  EXPECT_NE(set_error(&c, "data_dir", "x"), "<ok>");  // set_config takes the dashed name only
}

TEST(ConfigKeys, TableIsConsistent) {
  std::set<std::string> names, envs;
  for (const ConfigKey& k : config_keys()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_TRUE(envs.insert(k.env).second) << k.env;
    EXPECT_NE(std::string(k.description), "") << k.name;
    // Every key is known to set_config.
    Config c;
    EXPECT_EQ(set_error(&c, k.name, "\x01").find("unknown key"), std::string::npos) << k.name;
  }
  for (const char* env : {"BUZZ_BIND_ADDR", "RELAY_URL", "RELAY_OWNER_PUBKEY", "BUZZ_REQUIRE_RELAY_MEMBERSHIP",
                          "BUZZ_RELAY_PRIVATE_KEY", "BUZZ_MAX_CONNECTIONS", "BUZZ_MAX_CONCURRENT_HANDLERS",
                          "BUZZ_SEND_BUFFER", "BUZZ_REQUIRE_AUTH_TOKEN", "BUZZ_MEDIA_BASE_URL", "BUZZ_MEDIA_SERVER_DOMAIN",
                          "BUZZ_MAX_IMAGE_BYTES", "BUZZ_MAX_GIF_BYTES", "BUZZ_HEALTH_PORT", "BUZZ_METRICS_PORT"}) {
    EXPECT_TRUE(envs.count(env)) << env;
  }
}

// `buzz serve --help` is written from the table: every key is a row with its
// variable, and the rows parse as the file's keys do.
TEST(ConfigKeys, EveryKeyHasHelpAnEnvironmentNameAndAHelpLine) {
  const std::string help = serve_help();
  for (const ConfigKey& k : config_keys()) {
    SCOPED_TRACE(k.name);
    EXPECT_NE(std::string(k.description), "");
    ASSERT_NE(k.env, nullptr);
    EXPECT_NE(std::string(k.env), "");
    EXPECT_NE(help.find("\n  --" + std::string(k.name) + " " + k.value.placeholder), std::string::npos);
    EXPECT_NE(help.find("[env: " + std::string(k.env) + "]"), std::string::npos);
  }
  EXPECT_NE(help.find("  --open "), std::string::npos);
  EXPECT_NE(help.find("[env: BUZZ_CONFIG]"), std::string::npos);
  EXPECT_NE(help.find("[default: 0.0.0.0:3000]"), std::string::npos);
}

TEST(ConfigKeys, ServeFlagsRecordKeysInOrderForSetConfig) {
  ServeFlags flags;
  const std::vector<options::Option> rows = serve_options(&flags);
  const char* argv[] = {"buzz", "serve", "--threads", "3", "--open", "--config=/etc/buzz.yaml", "--threads=4", "--bind", "127.0.0.1:1"};
  options::Parsed parsed = options::parse(rows, int(std::size(argv)), const_cast<char* const*>(argv), 2);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_TRUE(flags.open);
  EXPECT_EQ(flags.config_file, "/etc/buzz.yaml");
  const std::vector<std::pair<std::string, std::string>> expected = {{"threads", "3"}, {"threads", "4"}, {"bind", "127.0.0.1:1"}};
  EXPECT_EQ(flags.keys, expected);
  const char* unknown[] = {"buzz", "serve", "--colour", "blue"};
  EXPECT_EQ(options::parse(rows, 4, const_cast<char* const*>(unknown), 2).error, "unexpected argument '--colour' found");
}

// ---------------------------------------------------------------------------
// sources

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("buzz_config_test_" + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".yaml"))
                .string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void write(const std::string& text) { std::ofstream(path_) << text; }
  std::string path_;
};

TEST_F(ConfigFile, AppliesTopLevelKeysIncludingSnakeCase) {
  write("data_dir: /srv/buzz\nbind: 127.0.0.1:4444\nrequire-membership: false\nmax_connections: 7\n"
        "owner: " + kOwner + "\n");
  Config c;
  engine::Status s = load_config_file(&c, path_);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(c.data_dir, "/srv/buzz");
  EXPECT_EQ(c.bind_port, 4444);
  EXPECT_FALSE(c.require_membership);
  EXPECT_EQ(c.max_connections, 7);
  ASSERT_TRUE(c.owner);
}

TEST_F(ConfigFile, EmptyFileChangesNothing) {
  write("");
  Config c;
  EXPECT_TRUE(load_config_file(&c, path_).ok());
  EXPECT_EQ(c.bind_port, 3000);
}

TEST_F(ConfigFile, BadValueNamesKeyAndFile) {
  write("threads: lots\n");
  Config c;
  engine::Status s = load_config_file(&c, path_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "config: threads (file " + path_ + ") = 'lots': expected an integer from 0 to 256");
}

TEST_F(ConfigFile, UnknownKeyIsRefused) {
  write("colour: blue\n");
  Config c;
  engine::Status s = load_config_file(&c, path_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("unknown key 'colour'"), std::string::npos) << s.error();
}

TEST_F(ConfigFile, NonMappingAndNestedValuesAreRefused) {
  Config c;
  write("- a\n- b\n");
  engine::Status s = load_config_file(&c, path_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "config: " + path_ + " must be a mapping of key: value");
  write("bind:\n  host: x\n");
  s = load_config_file(&c, path_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "config: bind (file " + path_ + "): expected a single value");
}

TEST_F(ConfigFile, MissingOrBrokenFile) {
  Config c;
  engine::Status s = load_config_file(&c, path_ + ".missing");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().rfind("config: cannot read " + path_ + ".missing", 0), 0u) << s.error();
  write("bind: [unclosed\n");
  EXPECT_FALSE(load_config_file(&c, path_).ok());
}

class ConfigEnv : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const ConfigKey& k : config_keys()) ::unsetenv(k.env);
  }
};

TEST_F(ConfigEnv, ReadsTheOriginalVariableNames) {
  for (const ConfigKey& k : config_keys()) ::unsetenv(k.env);
  ::setenv("BUZZ_BIND_ADDR", "0.0.0.0:5555", 1);
  ::setenv("RELAY_URL", "wss://relay.example.com", 1);
  ::setenv("RELAY_OWNER_PUBKEY", kOwner.c_str(), 1);
  ::setenv("BUZZ_REQUIRE_RELAY_MEMBERSHIP", "false", 1);
  ::setenv("BUZZ_SEND_BUFFER", "42", 1);
  Config c;
  engine::Status s = load_config_env(&c);
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(c.bind_port, 5555);
  EXPECT_EQ(c.relay_url, "wss://relay.example.com");
  ASSERT_TRUE(c.owner);
  EXPECT_FALSE(c.require_membership);
  EXPECT_EQ(c.send_buffer, 42);
}

TEST_F(ConfigEnv, BadValueNamesTheVariable) {
  for (const ConfigKey& k : config_keys()) ::unsetenv(k.env);
  ::setenv("BUZZ_MAX_CONNECTIONS", "many", 1);
  Config c;
  engine::Status s = load_config_env(&c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "config: max-connections (BUZZ_MAX_CONNECTIONS) = 'many': expected a positive integer");
}

TEST_F(ConfigEnv, UnsetVariablesChangeNothing) {
  for (const ConfigKey& k : config_keys()) ::unsetenv(k.env);
  Config c;
  ASSERT_TRUE(load_config_env(&c).ok());
  EXPECT_EQ(c.bind_port, 3000);
  EXPECT_EQ(c.data_dir, "./data");
}

}  // namespace
}  // namespace buzz::server
