// `buzz serve`: reads the configuration, opens the data directory and runs one
// network loop per core plus the store writer until SIGINT / SIGTERM.
// Start-up either completes or exits with a message naming what is wrong:
// nothing is left half-started.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/media_store.h"
#include "engine/pubkey_allowlist.h"
#include "engine/relay_members.h"
#include "engine/thread_role.h"
#include "migrate/redis_backends.h"
#include "net/body_spool.h"
#include "net/server_process.h"
#include "net/tls.h"
#include "server/access/banned_events_store.h"
#include "server/access/blossom_auth.h"
#include "server/access/gatekeeper.h"
#include "server/access/nip98.h"
#include "server/access/relay_key.h"
#include "server/app/admin_target.h"
#include "server/app/backup_point.h"
#include "server/app/cli.h"
#include "server/app/config.h"
#include "server/app/store_backend.h"
#include "server/app/team_reconciler.h"
#include "server/common/log.h"
#include "server/common/relay_url.h"
#include "server/door/front_door.h"
#include "server/feeds/search_feeder.h"
#include "server/http/http_api.h"
#include "server/huddle/huddle.h"
#include "server/media/media.h"
#include "server/ops/allocator_stats.h"
#include "server/ops/control_socket.h"
#include "server/ops/health.h"
#include "server/ops/metrics.h"
#include "server/ops/ops_listener.h"
#include "server/pipeline/throttle.h"
#include "server/relay/delivery_recorder.h"
#include "server/relay/history.h"
#include "server/relay/relay.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

// BUZZ_HEALTH_PORT and BUZZ_METRICS_PORT, when set; one port may serve both.
engine::Result<std::unique_ptr<OpsListener>> open_side_ports(const Config& cfg, const Health& probes,
                                                             const MetricsSources& sources) {
  std::vector<OpsListener::Endpoint> endpoints;
  auto health = [&probes](const net::HttpRequest& req) { return probes.check(req.path, /*health_port=*/true); };
  auto metrics = [&sources](const net::HttpRequest& req) {
    return req.path == "/metrics" ? std::optional(metrics_page(sources)) : std::nullopt;
  };
  if (cfg.health_port != 0 && cfg.health_port == cfg.metrics_port) {
    endpoints.push_back({"health and metrics", cfg.health_port, [health, metrics](const net::HttpRequest& req) {
                           auto r = health(req);
                           return r ? r : metrics(req);
                         }});
  } else {
    if (cfg.health_port != 0) endpoints.push_back({"health", cfg.health_port, health});
    if (cfg.metrics_port != 0) endpoints.push_back({"metrics", cfg.metrics_port, metrics});
  }
  return OpsListener::open(cfg.bind_host, std::move(endpoints));
}

// <data-dir>/control.sock (server/ops/control_socket.h): `buzz backup` asks
// for a backup point. The point is taken between two store-writer batches;
// the staging files stay until `buzz backup` has copied them and hangs up.
// Without it (a data directory path too long for a socket) the relay still
// serves; `buzz backup` then says the directory is in use.
struct BackupSources {
  engine::RocksDatabase* db;  // null on PostgreSQL
  StoreWriter* writer;
  AuditFeed* feed;
  const engine::AuditChain* chain;
};
// With BUZZ_TEST_CLOCK=1 (tests only) it also answers "advance-clock SECONDS",
// which moves this relay's clock forward (docs/testing.md, "The test clock").
std::unique_ptr<ControlSocket> open_control_socket(const Config& cfg, BackupSources src) {
  const std::string data_dir = cfg.data_dir;
  const char* test_clock_env = std::getenv("BUZZ_TEST_CLOCK");
  const bool test_clock = test_clock_env && std::string_view(test_clock_env) == "1";
  if (test_clock) log_warn("BUZZ_TEST_CLOCK=1: the control socket may move this relay's clock forward (a test aid; never in production)");
  auto control = ControlSocket::open(data_dir + "/control.sock", [data_dir, src, test_clock](std::string_view request, int fd, int stop_fd) {
    auto refuse = [fd](const std::string& why) { (void)write_line(fd, json_object({{"ok", "false"}, {"error", json_string(why)}})); };
    constexpr std::string_view kAdvance = "advance-clock ";
    if (test_clock && request.starts_with(kAdvance)) {
      const std::string seconds(request.substr(kAdvance.size()));
      if (seconds.empty() || seconds.size() > 6 || seconds.find_first_not_of("0123456789") != std::string::npos) {
        return refuse("advance-clock takes whole seconds, at most 999999");
      }
      engine::advance_clock(std::stoull(seconds));
      log_warn("the test clock moved forward", {{"seconds", seconds}});
      (void)write_line(fd, json_object({{"ok", "true"}, {"now", std::to_string(engine::unix_now())}}));
      return;
    }
    if (request != "backup") return refuse("unknown request: the control socket answers 'backup'");
    if (!src.db) return refuse("this relay stores in PostgreSQL: back it up with pg_dump (README, \"Back up and restore\")");
    auto point = take_backup_point(data_dir, {*src.db, src.writer, src.feed, src.chain});
    if (!point) return refuse(point.error());
    log_info("backup point taken", {{"audit_seq", std::to_string(point->audit.seq)},
                                    {"paused_ms", std::to_string(point->paused_ms)}, {"staging", point->staging}});
    if (write_line(fd, backup_point_json(*point))) wait_for_close(fd, stop_fd);
    remove_backup_staging(data_dir, point->staging);
  });
  if (!control) {
    log_warn("no control socket: `buzz backup` cannot reach this relay", {{"error", control.error()}});
    return nullptr;
  }
  return std::move(*control);
}

int fail(const std::string& why, int code = kExitFailure) {
  std::fprintf(stderr, "buzz serve: %s\n", why.c_str());
  return code;
}

// The legacy allow-list becomes the member table on the first start that has
// none (docs/reference/protocol.md §7.1); returns the list for the AUTH gate.
engine::Result<std::vector<engine::AllowedPubkey>> seed_members(engine::PubkeyAllowlistTable& allowlist,
                                                                engine::RelayMemberTable& members) {
  auto allowed = allowlist.list();
  if (!allowed) return engine::Error{allowed.error()};
  auto existing = members.list();
  if (!existing) return engine::Error{existing.error()};
  if (!existing->empty() || allowed->empty()) return allowed;
  for (const engine::AllowedPubkey& a : *allowed) {
    engine::RelayMember m{a.pubkey, engine::RelayRole::kMember, a.added_by, a.added_at, a.added_at};
    if (auto s = members.put(m); !s) return engine::Error{s.error()};
  }
  log_info("relay members copied from the pubkey allow-list", {{"count", std::to_string(allowed->size())}});
  return allowed;
}

// On a closed relay someone must be able to sign in: without a configured or
// stored owner, make an owner key once and say where it is.
engine::Status ensure_owner(const Config& cfg, engine::RelayMemberTable& members) {
  if (cfg.owner) return members.set_owner(*cfg.owner, engine::unix_now());
  auto all = members.list();
  if (!all) return engine::Error{all.error()};
  for (const auto& m : *all) {
    if (m.role == engine::RelayRole::kOwner) return {};
  }
  bool created;
  std::string path = cfg.data_dir + "/owner.key";
  auto key = load_or_create_key_file(path, &created);
  if (!key) return engine::Error{key.error()};
  log_warn("no relay owner configured; using the owner key in the data directory",
           {{"owner_pubkey", engine::to_hex(key->pubkey)}, {"secret_key_file", path},
            {"hint", "set RELAY_OWNER_PUBKEY to your own key, or run with --open"}});
  return members.set_owner(key->pubkey, engine::unix_now());
}

// A SIGTERM's graceful stop, within `bound` (docs/operations.md, "Stopping"): no
// new connection and nothing more read; everything read is stored and answered
// (its OK queued before the close); then every WebSocket is closed with 1001 and
// HTTP connections after their answers. Past the bound, or at a second signal,
// whatever is left is cut when the loops stop.
// False when it was cut.
bool drain(const std::vector<std::unique_ptr<net::Loop>>& loops, StoreWriter& writer,
           const std::atomic<int64_t>& connections, const net::StopSignals& signals, std::chrono::seconds bound) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + bound;
  auto left_ms = [&] {
    return int(std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count()));
  };
  // Polls `done` every 10 ms until it holds; false at the deadline or at another signal.
  auto await = [&](const std::function<bool()>& done) {
    while (!done()) {
      if (left_ms() == 0) return false;
      if (int sig = signals.wait_for(std::min(10, left_ms())); sig != 0 && sig != SIGHUP) return false;
    }
    return true;
  };
  auto stopped = std::make_shared<std::atomic<size_t>>(0);  // may outlive a drain that was cut
  for (const auto& l : loops) l->stop_reading([stopped] { stopped->fetch_add(1); });
  // What the loops read has been handed to the writer once they all stopped reading.
  if (!await([&] { return stopped->load() == loops.size(); }) || !writer.wait_settled(deadline)) return false;
  // Each loop has its OK replies queued ahead of this (Loop::post keeps the order).
  for (const auto& l : loops) l->close_all(1001, "going away: the relay is shutting down");
  return await([&] { return connections.load() == 0; });
}

// SIGHUP: new handshakes use the files as they are now; open sessions keep theirs.
void reload_tls(net::TlsCertificate* tls) {
  if (!tls) return log_info("SIGHUP: nothing to reload (no tls-cert)");
  if (std::string error = tls->reload(); !error.empty()) {
    return log_error("SIGHUP: TLS certificate not reloaded, the previous one stays", {{"error", error}});
  }
  log_info("SIGHUP: TLS certificate reloaded", {{"cert", tls->cert_path()}});
}

}  // namespace

int run_serve(int argc, char** argv) {
  ServeFlags flags;
  const options::Parsed parsed = options::parse(serve_options(&flags), argc, argv, 2, {.positional = true});
  if (parsed.outcome == options::Parsed::Outcome::kHelp) return std::fputs(serve_help().c_str(), stdout), kExitOk;
  if (!parsed.error.empty()) return fail(parsed.error, kExitUsage);
  if (!parsed.positional.empty()) return fail("unexpected argument '" + parsed.positional[0] + "'", kExitUsage);

  Config cfg;
  const char* env_file = std::getenv(kConfigFileEnv);
  const std::string file = flags.config_file.value_or(env_file ? env_file : "");
  if (!file.empty()) {
    if (auto s = load_config_file(&cfg, file); !s) return fail(s.error(), kExitUsage);
  }
  if (auto s = load_config_env(&cfg); !s) return fail(s.error(), kExitUsage);
  if (flags.open) cfg.require_membership = false;
  for (const auto& [k, v] : flags.keys) {
    if (auto s = set_config(&cfg, k, v, "flag"); !s) return fail(s.error(), kExitUsage);
  }
  if (auto s = check_config(cfg); !s) return fail(s.error(), kExitUsage);
  // Before anything is opened: a certificate that cannot serve stops the start.
  std::unique_ptr<net::TlsCertificate> tls;
  if (!cfg.tls_cert.empty()) {
    try {
      tls = std::make_unique<net::TlsCertificate>(cfg.tls_cert, cfg.tls_key);
    } catch (const std::exception& e) {
      return fail(e.what(), kExitUsage);
    }
  }
  LogLevel level;
  parse_log_level(cfg.log_level, &level);
  set_log_level(level);
  return_freed_pages_promptly();

  // Before any thread starts (the store's own among them): they inherit the
  // blocked signals, and this one waits for them. A thread that did not block
  // them would die of a second SIGTERM while the first one drains.
  const net::StopSignals stop_signals(/*reload=*/true);

  std::error_code ec;
  std::filesystem::create_directories(cfg.data_dir, ec);
  if (ec) return fail("cannot create data directory " + cfg.data_dir + ": " + ec.message());

  auto backend = open_store_backend(cfg);
  if (!backend) return fail(backend.error());
  auto key = load_relay_key(cfg.data_dir, cfg.relay_private_key);
  if (!key) return fail(key.error(), kExitUsage);

  engine::RelayMemberTable& members = *(*backend)->members;
  auto allowed = seed_members(*(*backend)->allowlist, members);
  if (!allowed) return fail(allowed.error());
  if (cfg.require_membership) {
    if (auto s = ensure_owner(cfg, members); !s) return fail(s.error());
  } else if (cfg.owner) {
    if (auto s = members.set_owner(*cfg.owner, engine::unix_now()); !s) return fail(s.error());
  }
  RelayMembership membership(members, *key, cfg.require_membership);
  if (auto s = membership.load(); !s) return fail(s.error());

  // What NIP-86 changed (bans, blocked addresses, NIP-11 texts); every reader
  // sees the store with the banned events screened out.
  RelayPolicy policy((*backend)->store());
  if (auto s = policy.load(); !s) return fail(s.error());
  BannedEventsStore screened_store((*backend)->store(), policy);
  engine::EventStore& store = screened_store;

  // The audit log must be whole before anything new is appended (docs/reference/audit.md §8.6).
  std::unique_ptr<AuditFeed> audit_feed;
  engine::AuditOptions audit_options;
  audit_options.queue_capacity = size_t(cfg.audit_queue);
  audit_options.on_durable = [&audit_feed](uint64_t ticket) { audit_feed->on_durable(ticket); };
  auto audit_log = open_audit_chain(cfg, **backend, audit_options);
  if (!audit_log) return fail(audit_log.error());
  audit_feed = std::make_unique<AuditFeed>(store, **audit_log, audit_options.queue_capacity);
  if (auto s = audit_feed->recover(); !s) return fail(s.error());
  auto search_index = open_search_index(cfg, **backend);
  if (!search_index) return fail(search_index.error());
  auto media_store = engine::MediaStore::open(cfg.data_dir + "/media");
  if (!media_store) return fail(media_store.error());
  // A backup's staging files still there are a crash's leftover too.
  remove_backup_staging(cfg.data_dir);
  // Nothing streams yet: a video body's temporary file still there is a crash's leftover.
  net::remove_spool_leftovers(media_store->root() + "/tmp");
  MemoryPresenceStore local_presence;
  // One of several nodes: Redis carries the fan-out between them, presence and
  // the rate-limit windows (issue 17 §2; migrate/redis_backends.h).
  std::unique_ptr<migrate::RedisBackends> redis;
  if (!cfg.pubsub_url.empty()) {
    auto opened = migrate::RedisBackends::open(cfg.pubsub_url, local_presence,
                                               [](const std::string& warning) { log_warn(warning); });
    if (!opened) return fail(opened.error() + " (check --pubsub / REDIS_URL)");
    redis = std::move(*opened);
  }

  // Only now, with every service outside the store opened: an original's team
  // tables become the team state (once, in one transaction), so a first start
  // that fails above has adopted nothing and a retry starts afresh.
  if (auto s = (*backend)->adopt_original_team_state(); !s) return fail(s.error());
  engine::TeamState team;
  if (auto s = team.load(store); !s) return fail(s.error());
  ProfileDirectory profiles(store, url_host(cfg.effective_relay_url()));
  if (auto s = profiles.load(); !s) return fail(s.error());
  TeamModel team_model(team, store, profiles, *key, uint32_t(cfg.ephemeral_ttl_override));
  engine::ApiTokens tokens(store);
  if (auto s = tokens.check(); !s) return fail(s.error());
  SearchFeeder search_feeder(**search_index, store_event_lookup(store), {.capacity = size_t(cfg.search_queue)},
                             store_edits_lookup(store));
  PresenceStore& presence = redis ? static_cast<PresenceStore&>(redis->presence()) : local_presence;
  StoreWriter writer(store, membership, team_model, *audit_feed, size_t(cfg.max_concurrent_handlers),
                     std::chrono::seconds(cfg.reaper_interval));
  writer.set_search(&search_feeder);

  // The rooms of server/, each handed the services it uses (docs/architecture.md).
  RelayStats stats;
  Health health((*backend)->storage_name());
  MetricsSources metrics{&stats, nullptr, &(*audit_log)->metrics(), &writer, &search_feeder, {}, (*backend)->db.get(), {}, nullptr};
  Gatekeeper gatekeeper(cfg.allow_nip_oa_auth, membership, profiles);
  gatekeeper.set_policy(&policy);
  if (cfg.pubkey_allowlist) gatekeeper.restrict_to(*allowed);
  Throttle throttle(cfg.rate_limits, profiles, membership, store, writer, stats,
                    redis ? &redis->rate_counter() : nullptr);
  History history(store, team, search_index->get());
  const std::string media_url =
      cfg.media_base_url.empty() ? nip98_base_url(cfg.effective_relay_url()) + "/media" : cfg.media_base_url;
  const engine::ImetaChecker imeta(*media_store, media_url);
  KeyProver prover(tokens, gatekeeper, membership);
  const Services services{store,  team,     membership, presence, tokens, profiles, gatekeeper,
                          prover, throttle, history,    writer,   stats,  imeta};
  NegLimits neg_limits;
  neg_limits.frame_bytes = neg_frame_bytes(size_t(cfg.max_message_bytes));
  neg_limits.idle_ms = cfg.neg_idle_timeout * 1000;
  neg_limits.max_items = size_t(cfg.neg_max_events);
  const SessionLimits session_limits{cfg.auth_timeout * 1000, uint32_t(cfg.max_connections_per_pubkey),
                                     size_t(cfg.max_message_bytes)};
  Relay relay(services, &search_feeder, cfg.effective_relay_url(), *key, neg_limits, session_limits);
  Media media({cfg.require_auth_token, uint64_t(cfg.max_image_bytes), uint64_t(cfg.max_gif_bytes),
               uint64_t(cfg.max_file_bytes), uint64_t(cfg.max_video_bytes), uint64_t(cfg.upload_bytes_in_flight),
               uint64_t(cfg.upload_bytes_per_pubkey), uint32_t(cfg.min_upload_rate), media_store->root() + "/tmp",
               media_url, blossom_server_authority(cfg.media_server_domain, cfg.effective_relay_url()),
               nip98_base_url(cfg.effective_relay_url())},
              {*media_store, team, membership, tokens, gatekeeper, prover, throttle, writer, stats});
  Workflows::Options workflow_options;
  workflow_options.max_concurrent = uint32_t(cfg.workflow_max_concurrent);
  workflow_options.tick = std::chrono::seconds(cfg.workflow_tick);
  workflow_options.http.allow_hosts = cfg.workflow_webhook_allow_hosts;
  workflow_options.public_http_url = nip98_base_url(cfg.effective_relay_url());
  Workflows workflows(workflow_options, {store, team, writer, membership, gatekeeper}, *key);
  if (auto s = workflows.load(); !s) return fail(s.error());
  // Receipts' deliveries (set up below, before any port serves /metrics), and their counters.
  std::unique_ptr<engine::DeliveryLog> delivery_log;
  std::unique_ptr<DeliveryRecorder> deliveries;
  metrics.more = [&workflows, &deliveries] {
    return workflows.metrics_text() + (deliveries ? deliveries->metrics_text() : std::string());
  };
  auto ops = open_side_ports(cfg, health, metrics);
  if (!ops) return fail(ops.error());
  auto control = open_control_socket(cfg, {(*backend)->db.get(), &writer, audit_feed.get(), audit_log->get()});

  net::raise_open_files_limit();

  int threads = cfg.threads > 0 ? cfg.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int64_t> connection_count{0};
  metrics.connections = &connection_count;
  net::LoopOptions loop_options;
  loop_options.host = cfg.bind_host;
  loop_options.port = cfg.bind_port;
  loop_options.send_queue_limit = size_t(cfg.send_buffer);
  loop_options.max_connections = cfg.max_connections;
  loop_options.ping_interval_secs = int(cfg.ping_interval);
  loop_options.connection_count = &connection_count;
  loop_options.send_queue_bytes = size_t(cfg.send_buffer_bytes);
  // Past the message limit an authenticated client's message is still read,
  // up to half as large again, to be refused in words (docs/limits.md).
  loop_options.max_message_bytes = size_t(cfg.max_message_bytes);
  loop_options.max_read_bytes = loop_options.max_message_bytes + loop_options.max_message_bytes / 2;
  // A relay at its connection cap still answers its probes (docs/limits.md, "Connections").
  loop_options.probe_paths = {"/health", "/_liveness", "/_readiness"};
  net::AddressCounts unauthenticated(uint32_t(cfg.max_unauthenticated_per_address));
  loop_options.addresses = &unauthenticated;
  net::SendMemory send_memory(size_t(threads), cfg.send_memory_bytes);
  loop_options.send_memory = &send_memory;
  loop_options.tls = tls.get();
  metrics.send_memory = &send_memory;
  RelayInfo info{cfg.relay_name, cfg.relay_description, cfg.relay_icon, cfg.relay_banner, cfg.relay_contact,
                 cfg.relay_terms_of_service, cfg.relay_operator ? cfg.relay_operator : cfg.owner};
  info.max_message_length = loop_options.max_message_bytes;
  info.restricted_writes = cfg.require_membership;
  HttpApi http({cfg.effective_relay_url(), cfg.cors_origins, uint32_t(cfg.mint_rate_limit), cfg.pubkey_header_auth,
                std::move(info), cfg.workflow_webhook_allow_hosts},
               services, {relay, media, health, metrics, &workflows, audit_source(cfg, **backend)}, *key, size_t(threads));
  huddle::Huddle huddles({store, team, gatekeeper, writer, *media_store}, cfg.effective_relay_url(), *key,
                         {cfg.data_dir + "/huddle-recordings", media_url, cfg.huddle_recording_max_secs * 1000,
                          uint64_t(cfg.huddle_recording_track_bytes), size_t(cfg.huddle_recordings)});
  FrontDoor door(relay, &huddles, http, &policy);
  std::vector<std::unique_ptr<net::Loop>> loops;
  try {
    for (int i = 0; i < threads; ++i) {
      loops.push_back(std::make_unique<net::Loop>(uint16_t(i), loop_options, door));
      // Port 0 asks the kernel for a free port: every other loop shares the first one's.
      loop_options.port = loops.front()->port();
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  std::vector<net::Loop*> loop_ptrs;
  for (auto& l : loops) loop_ptrs.push_back(l.get());
  metrics.loops.assign(loop_ptrs.begin(), loop_ptrs.end());
  huddles.attach(loop_ptrs);
  // Receipts: the fan-out's deliveries, in the data directory or the shared store (docs/storage.md, "Deliveries").
  if (cfg.delivery_retention_days > 0) {
    auto opened = open_delivery_log(cfg, **backend);
    if (!opened) return fail(opened.error());
    delivery_log = std::move(*opened);
    deliveries = std::make_unique<DeliveryRecorder>(
        *delivery_log, loop_ptrs.size(), DeliveryOptions{.retention_days = uint32_t(cfg.delivery_retention_days)});
    deliveries->start();
    relay.set_deliveries(deliveries.get());
  }
  relay.attach(loop_ptrs, &http, &workflows,
               [&huddles](net::Loop& loop, const std::vector<Revocation>& channels,
                          const std::vector<engine::Pubkey>& members) { huddles.on_rights_lost(loop, channels, members); });
  if (redis) {
    relay.set_pubsub(&redis->pubsub());
    redis->pubsub().start([&relay](std::vector<engine::RemoteEvent>&& events) { relay.on_remote_events(std::move(events)); });
    // Clients come only once this node hears the others: a ban or an event
    // published on another node in between would never reach it.
    if (!redis->pubsub().wait_subscribed(std::chrono::seconds(5))) {
      log_warn("serving before the Redis subscription is confirmed: other nodes' events reach this node once it is");
    }
  }
  // The order each batch's outcome takes is the writer's (StoreWriter::Sinks).
  writer.start({.observe = [&workflows](WriteBatchOutcome& o) { workflows.observe(o); },
                .deliver = [&relay](WriteBatchOutcome&& o) { relay.on_write_batch(std::move(o)); }});
  workflows.start();
  media.start();
  huddles.start();  // after the writer: it first publishes the recordings a stopped process left
  if (cfg.require_membership) writer.submit_relay_events({membership.membership_list(engine::unix_now())});
  // BUZZ_RECONCILE_CHANNELS: the team tables, read again for 2 minutes (team_reconciler.h).
  std::unique_ptr<TeamReconciler> reconciler;
  if (cfg.reconcile_channels) {
    reconciler = std::make_unique<TeamReconciler>(writer, [&backend] { return (*backend)->original_channels(); });
    reconciler->start();
  }

  (*ops)->start();
  if (control) control->start();

  std::vector<std::thread> loop_threads;
  for (size_t i = 0; i < loops.size(); ++i) {
    loop_threads.emplace_back([&l = loops[i], i] {
      engine::set_thread_role(("buzz-loop-" + std::to_string(i)).c_str(), engine::ThreadRole::kForeground);
      l->run();
    });
  }

  std::string listen = cfg.bind_host + ":" + std::to_string(loops.front()->port());
  std::printf("buzz %s listening on %s (relay URL %s), data in %s\n", BUZZ_VERSION, listen.c_str(),
              cfg.effective_relay_url().c_str(),
              cfg.store.empty() ? std::filesystem::absolute(cfg.data_dir).c_str() : (*backend)->where.c_str());
  for (const auto& [port, path] : {std::pair{cfg.health_port, "/_readiness"}, std::pair{cfg.metrics_port, "/metrics"}}) {
    if (port != 0) std::printf("  and http://%s:%u%s\n", cfg.bind_host.c_str(), unsigned(port), path);
  }
  std::fflush(stdout);
  // Where `buzz admin` finds this relay while it holds the data directory (admin_target.h).
  if (auto s = write_serving_file(cfg.data_dir, {cfg.effective_relay_url(), listen}); !s) log_warn(s.error());
  log_info("listening", {{"addr", listen}, {"relay_url", cfg.effective_relay_url()}, {"data_dir", cfg.data_dir},
                         {"loops", std::to_string(threads)}, {"relay_pubkey", engine::to_hex(key->pubkey)},
                         {"membership", cfg.require_membership ? "closed" : "open"},
                         {"pubsub", redis ? "redis" : "none"}, {"tls", tls ? cfg.tls_cert : "off"}});
  if (cfg.pubkey_header_auth) {
    log_warn("DEVELOPMENT AUTHENTICATION ON: BUZZ_REQUIRE_AUTH_TOKEN=false, so an unsigned X-Pubkey header on the "
             "HTTP bridge and REST is taken as the caller's identity; anyone on this host may act as any pubkey. "
             "Never run it so in production (leave require-auth-token unset).",
             {{"addr", listen}});
  }

  int sig;
  while ((sig = stop_signals.wait()) == SIGHUP) reload_tls(tls.get());
  log_info("shutting down", {{"signal", sig == SIGINT ? "SIGINT" : "SIGTERM"}});
  health.begin_shutdown();  // the health port answers 503 until the process exits
  if (control) control->stop();  // a backup in hand is told to stop copying (its point was taken)
  if (reconciler) reconciler->stop();  // no team change of its own while the writer drains
  if (redis) redis->pubsub().stop();  // no other node's events for loops about to stop
  const auto drain_began = std::chrono::steady_clock::now();
  if (drain(loops, writer, connection_count, stop_signals, std::chrono::seconds(cfg.shutdown_timeout))) {
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - drain_began);
    log_info("drained", {{"ms", std::to_string(took.count())}});
  } else {
    log_warn("drain cut short: the connections left are closed without a goodbye",
             {{"connections", std::to_string(connection_count.load())}, {"shutdown_timeout_secs", std::to_string(cfg.shutdown_timeout)}});
  }
  for (auto& l : loops) l->stop();
  for (auto& t : loop_threads) t.join();
  relay.stop();      // the NEG worker posts to the loops: it ends before they do
  if (deliveries) deliveries->stop();  // the loops' last deliveries are written
  http.stop();       // so do the link previews' workers
  media.stop();      // answers the uploads it holds (their loops are stopped: nobody reads them)
  huddles.stop();    // recordings still running are ended and published, before the writer stops
  workflows.stop();  // before the writer: a run may be waiting for a commit
  writer.stop();
  if (redis) redis->stop();  // the last batch's publishes are sent
  search_feeder.stop();  // everything offered becomes searchable before exit
  audit_feed->flush();
  (*audit_log)->stop();  // drains every queued entry into the chain
  (*ops)->stop();
  remove_serving_file(cfg.data_dir);
  return kExitOk;
}

}  // namespace buzz::server
