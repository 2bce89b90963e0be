// The harness event loop; see harness.h. This file starts it (the API token,
// the agents, the relay connection, the owner and the channels), runs the
// inbox, and holds the wait that coordinates the rest: each timer's turn, then
// poll() on the inbox and the relay socket. What each wake-up does is in the
// concept's own file (harness_loop.h lists them).
#include "tools/acp/harness.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/json_text.h"
#include "tools/acp/harness_loop.h"
#include "tools/acp/relay_socket.h"
#include "tools/acp/rest_client.h"
#include "tools/cli/cli_error.h"

namespace buzz::acp {
namespace harness {
namespace {

constexpr auto kPongTimeout = seconds(10);
constexpr auto kPresenceInterval = seconds(60);
constexpr int kRestThreads = 4;

int g_inbox_fd = -1;  // the signal handler wakes the loop through it
volatile sig_atomic_t g_signalled = 0;

void on_signal(int) {
  g_signalled = 1;
  const uint64_t one = 1;
  (void)!write(g_inbox_fd, &one, sizeof one);
}

}  // namespace

void log(const std::string& text) { std::fprintf(stderr, "buzz acp: %s\n", text.c_str()); }

Clock::duration jittered(Clock::duration d) {
  thread_local std::mt19937 rng{std::random_device{}()};
  return std::chrono::duration_cast<Clock::duration>(d * std::uniform_real_distribution<double>(0.8, 1.2)(rng));
}

void Loop::post(std::function<void()> fn) {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(std::move(fn));
  }
  const uint64_t one = 1;
  (void)!write(inbox_fd_, &one, sizeof one);
}

void Loop::run_inbox() {
  uint64_t n;
  while (read(inbox_fd_, &n, sizeof n) > 0) {}
  std::deque<std::function<void()>> batch;
  {
    std::lock_guard lock(inbox_mu_);
    batch.swap(inbox_);
  }
  for (auto& fn : batch) fn();
}

// ---- startup -----------------------------------------------------------------

bool Loop::start_agents() {
  settings_.agent_command = cfg_.agent_command;
  settings_.agent_args = cfg_.agent_args;
  settings_.cwd = std::filesystem::current_path().string();
  if (cfg_.mcp_command.empty()) {
    settings_.mcp_servers_json = "[]";
  } else {
    std::string args = "[";
    for (const std::string& a : cfg_.mcp_args) args += (args.size() > 1 ? "," : "") + json_string(a);
    std::string env = R"([{"name":"BUZZ_RELAY_URL","value":)" + json_string(cfg_.relay_url) +
                      R"(},{"name":"BUZZ_PRIVATE_KEY","value":)" + json_string(cfg_.private_key_hex) + "}";
    if (!token_.empty()) env += R"(,{"name":"BUZZ_API_TOKEN","value":)" + json_string(token_) + "}";
    settings_.mcp_servers_json = R"([{"name":"buzz-mcp","command":)" + json_string(cfg_.mcp_command) + R"(,"args":)" +
                                 args + R"(],"env":)" + env + "]}]";
  }
  settings_.model = cfg_.model;
  settings_.permission_mode = cfg_.permission_mode;
  settings_.initial_message = cfg_.initial_message;
  settings_.system_prompt = cfg_.system_prompt;
  settings_.base_prompt = cfg_.base_prompt;
  settings_.turn_liveness = seconds(cfg_.turn_liveness_s);
  settings_.idle_timeout = seconds(cfg_.idle_timeout_s);
  settings_.max_turn = seconds(cfg_.max_turn_duration_s);
  settings_.max_turns_per_session = cfg_.max_turns_per_session;
  settings_.context_message_limit = cfg_.context_message_limit;
  settings_.rest_url = cfg_.rest_url;
  settings_.token = token_;
  settings_.private_key_hex = cfg_.private_key_hex;

  slots_.resize(size_t(cfg_.agents));
  for (int i = 0; i < cfg_.agents; ++i) {
    slots_[size_t(i)].agent = std::make_unique<AgentSlot>(
        i, settings_, [this](int slot, SlotReport r) { post([this, slot, r = std::move(r)]() mutable { on_report(slot, std::move(r)); }); });
  }
  // Spawned together rather than one after another: 32 agents start in the
  // time of the slowest instead of the sum.
  for (Slot& s : slots_) s.agent->run(SlotJob{});
  while (std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == Slot::State::kStarting; })) {
    pollfd p{inbox_fd_, POLLIN, 0};
    poll(&p, 1, 1000);
    run_inbox();
    if (g_signalled) return false;
  }
  const auto up = std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == Slot::State::kIdle; });
  if (up == 0) {
    log("all " + std::to_string(cfg_.agents) + " agents failed to start — cannot continue");
    return false;
  }
  if (up < cfg_.agents) log("warning: only " + std::to_string(up) + " of " + std::to_string(cfg_.agents) + " agents started");
  return true;
}

// ---- the loop ------------------------------------------------------------------

int Loop::run() {
  inbox_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  g_inbox_fd = inbox_fd_;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGPIPE, SIG_IGN);

  // The token: the configured one, else one minted with the key for this run
  // (revoked when the harness exits).
  try {
    if (cfg_.api_token) {
      token_ = *cfg_.api_token;
    } else {
      cli::GlobalOptions g;
      g.relay = cfg_.rest_url;
      g.private_key = cfg_.private_key_hex;
      minting_session_ = std::make_unique<cli::Session>(g, true);
      token_ = minting_session_->bearer_token();
    }
  } catch (const cli::CliError& e) {
    log(std::string("cannot get an API token: ") + e.what());
    return 1;
  }
  pool_ = std::make_unique<RestPool>(kRestThreads, cfg_.rest_url, token_, cfg_.private_key_hex);
  if (!start_agents()) return 1;
  watermark_ = engine::unix_now();
  {
    std::string error;
    ws_ = connect_relay(cfg_.relay_url, cfg_.key, token_, &error);
    if (ws_) on_connected();
    else schedule_reconnect(error);
  }
  if (cfg_.presence) {
    pool_->submit([](RestClient& rest) { rest.set_presence(true); });
    next_presence_ = Clock::now() + kPresenceInterval;
  }
  // The owner, then channel discovery intersected with --channels. A failed
  // owner lookup is retried when an event needs it (60 s apart).
  try {
    RestClient rest(cfg_.rest_url, token_, cfg_.private_key_hex);
    owner_checked_ = Clock::now();
    if (cfg_.agent_owner) {
      owner_ = cfg_.agent_owner;
      log("owner: " + *owner_ + " (--agent-owner)");
    } else {
      try {
        owner_ = rest.agent_owner(self_hex_);
        log(owner_ ? "owner: " + *owner_ : std::string("the agent has no owner"));
      } catch (const std::exception& e) {
        log(std::string("owner lookup failed: ") + e.what());
      }
    }
    if (!owner_ && cfg_.respond_to == RespondTo::kOwnerOnly) {
      log("warning: no owner known and --respond-to=owner-only: events are dropped until the owner resolves");
    }
    for (ChannelInfo& info : rest.member_channels()) {
      if (!cfg_.channels.empty() && std::find(cfg_.channels.begin(), cfg_.channels.end(), info.id) == cfg_.channels.end()) continue;
      ChannelState& ch = channels_[info.id];
      ch.info = info;
      if (ws_) subscribe(ch);
      else ch.subscribed = true;
    }
    log("listening in " + std::to_string(channels_.size()) + " channels with " +
        std::to_string(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == Slot::State::kIdle; })) +
        " agents");
  } catch (const std::exception& e) {
    log(std::string("channel discovery failed: ") + e.what() + " (membership notifications still add channels)");
  }
  if (cfg_.heartbeat_interval_s) next_heartbeat_ = Clock::now() + seconds(cfg_.heartbeat_interval_s);
  next_typing_ = Clock::now() + kTypingInterval;

  while (!shutdown_ && !g_signalled) {
    auto now = Clock::now();
    // Timers.
    if (reconnect_at_ != Clock::time_point{} && now >= reconnect_at_) {
      reconnect_at_ = {};
      connect_now();
    }
    if (ws_ && now >= next_ping_) {
      ws_->send_frame(net::ws::Opcode::kPing, "buzz-acp");
      pong_deadline_ = now + kPongTimeout;
      next_ping_ = now + kPingInterval;
    }
    if (ws_ && pong_deadline_ != Clock::time_point{} && now >= pong_deadline_) schedule_reconnect("no pong within 10 s");
    if (cfg_.typing && now >= next_typing_) send_typing();
    if (cfg_.presence && now >= next_presence_) {
      next_presence_ = now + kPresenceInterval;
      pool_->submit([](RestClient& rest) { rest.set_presence(true); });
    }
    if (cfg_.heartbeat_interval_s && now >= next_heartbeat_) heartbeat_tick();
    if (auto retry = queues_.next_retry(); retry && *retry <= now) dispatch();
    if (!queues_.clear_stuck(now, in_flight_deadline()).empty()) on_stuck();

    // The wait: until the next timer, or a message, or the inbox.
    Clock::time_point wake = now + seconds(1);
    auto sooner = [&](Clock::time_point t) {
      if (t != Clock::time_point{} && t < wake) wake = t;
    };
    sooner(reconnect_at_);
    if (ws_) sooner(next_ping_), sooner(pong_deadline_);
    if (cfg_.typing) sooner(next_typing_);
    if (auto retry = queues_.next_retry()) sooner(*retry);
    pollfd p[2] = {{inbox_fd_, POLLIN, 0}, {ws_ ? ws_->fd() : -1, POLLIN, 0}};
    const auto wait_ms = frames_pending_ && ws_ ? 0 : std::chrono::duration_cast<milliseconds>(wake - Clock::now()).count();
    poll(p, 2, int(std::clamp<int64_t>(wait_ms, 0, 1000)));
    if (p[0].revents & POLLIN) run_inbox();
    if (ws_ && (frames_pending_ || (p[1].revents & (POLLIN | POLLHUP | POLLERR)))) read_frames();
  }

  log(g_signalled ? "signal received; shutting down" : "shutting down");
  if (cfg_.presence) {
    try {
      RestClient(cfg_.rest_url, token_, cfg_.private_key_hex).set_presence(false);
    } catch (const std::exception&) {
    }
  }
  if (connector_.joinable()) connector_.join();
  slots_.clear();  // kills the agents
  pool_.reset();
  return exit_code_;
}

}  // namespace harness

int run_harness(Config config) {
  auto rules = rules_for(config);
  if (!rules) {
    harness::log(rules.error());
    return 1;
  }
  harness::Loop loop(std::move(config), std::move(*rules));
  return loop.run();
}

}  // namespace buzz::acp
