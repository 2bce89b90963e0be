// The harness event loop; see harness.h.
#include "tools/acp/harness.h"

#include <poll.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <unordered_set>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "tools/acp/agent_slot.h"
#include "tools/acp/channel_queue.h"
#include "tools/acp/relay_socket.h"
#include "tools/acp/rest_client.h"
#include "tools/acp/rest_pool.h"
#include "tools/acp/rules.h"
#include "tools/cli/cli_error.h"

namespace buzz::acp {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kMembershipSub = "membership-notif";
constexpr auto kPingInterval = seconds(30);
constexpr auto kPongTimeout = seconds(10);
constexpr auto kPresenceInterval = seconds(60);
constexpr auto kTypingInterval = seconds(3);
constexpr auto kOwnerTtl = seconds(60);
constexpr auto kSiblingHitTtl = seconds(300), kSiblingMissTtl = seconds(60);
constexpr size_t kSiblingCacheSize = 256;
constexpr size_t kIdGeneration = 6000, kMembershipGeneration = 1000;
constexpr int kRestThreads = 4;

int g_inbox_fd = -1;  // the signal handler wakes the loop through it
volatile sig_atomic_t g_signalled = 0;

void on_signal(int) {
  g_signalled = 1;
  const uint64_t one = 1;
  (void)!write(g_inbox_fd, &one, sizeof one);
}

void log(const std::string& text) { std::fprintf(stderr, "buzz acp: %s\n", text.c_str()); }

std::string json_string(std::string_view s) {
  std::string out;
  engine::append_json_string(out, s);
  return out;
}

Clock::duration jittered(Clock::duration d) {
  thread_local std::mt19937 rng{std::random_device{}()};
  return std::chrono::duration_cast<Clock::duration>(d * std::uniform_real_distribution<double>(0.8, 1.2)(rng));
}

// Two generations of ids: membership in either counts as seen; when the
// current one is full it becomes the old one (§A.4.2 dedup).
class SeenIds {
 public:
  explicit SeenIds(size_t generation) : generation_(generation) {}
  bool insert(const std::string& id) {  // false if already seen
    if (current_.count(id) || previous_.count(id)) return false;
    if (current_.size() >= generation_) {
      previous_ = std::move(current_);
      current_.clear();
    }
    current_.insert(id);
    return true;
  }

 private:
  size_t generation_;
  std::unordered_set<std::string> current_, previous_;
};

struct Slot {
  enum class State { kStarting, kIdle, kBusy, kRespawning, kEmpty };
  std::unique_ptr<AgentSlot> agent;
  State state = State::kStarting;
  std::string channel;  // the channel of the running turn; "" for a heartbeat
  std::vector<TaggedEvent> batch;
  std::set<std::string> sessions;
  std::vector<std::string> drop_sessions;  // channels removed while it was busy
  bool stuck = false;  // its turn outlived the in-flight deadline: its channel was freed
  std::deque<Clock::time_point> crashes;
  int consecutive_crashes = 0;
};

struct ChannelState {
  ChannelInfo info;
  bool subscribed = false;
  bool removed = false;
  uint64_t first_subscribed = 0;
  uint64_t last_seen = 0;  // newest created_at handled, for `since` after a reconnect
  uint64_t newest_membership = 0;
  std::vector<TaggedEvent> cancelled;  // of an interrupted turn, merged into the next
};

class Loop {
 public:
  Loop(Config c, std::vector<Rule> rules)
      : cfg_(std::move(c)), rules_(std::move(rules)), self_hex_(engine::to_hex(cfg_.key.pubkey)) {}
  int run();

 private:
  // Inbox: closures from other threads, run on the loop.
  void post(std::function<void()> fn);
  void run_inbox();

  bool start_agents();
  void connect_now();
  void on_connected();
  void schedule_reconnect(const std::string& why);
  void subscribe(ChannelState& ch);
  std::string filter_for(const std::string& channel_id, uint64_t since) const;
  uint64_t since_for(const ChannelState& ch) const;
  void send(const std::string& text);

  void read_frames();
  void on_message(const std::string& text);
  void on_membership(const engine::Event& e);
  void forget_sessions(const std::string& channel);
  void on_channel_event(const std::string& channel, engine::Event e);
  void after_author_gate(const std::string& channel, engine::Event e);
  bool author_allowed(const engine::Event& e, bool* pending);
  void lookup_owner();

  void dispatch();
  void on_stuck();
  Clock::duration in_flight_deadline() const { return seconds(cfg_.max_turn_duration_s + 100); }
  void on_report(int slot, SlotReport report);
  void respawn(int slot);
  void send_typing();
  void send_typing_in(const std::string& channel);
  void heartbeat_tick();
  void reactions(const std::vector<TaggedEvent>& events, const char* emoji, bool add);
  bool turn_in_flight(const std::string& channel) const;

  Config cfg_;
  std::vector<Rule> rules_;
  const std::string self_hex_;
  std::string token_;
  std::unique_ptr<cli::Session> minting_session_;  // holds an auto-minted token for the run
  std::unique_ptr<RestPool> pool_;
  SlotSettings settings_;
  std::vector<Slot> slots_;
  ChannelQueues queues_;
  std::map<std::string, ChannelState> channels_;
  SeenIds seen_{kIdGeneration}, seen_membership_{kMembershipGeneration};
  uint64_t watermark_ = 0;
  uint64_t membership_since_ = 0;

  std::shared_ptr<client::WsClient> ws_;
  bool connecting_ = false;
  int reconnect_attempt_ = 0;
  Clock::time_point reconnect_at_{};
  std::thread connector_;
  Clock::time_point next_ping_{}, pong_deadline_{};
  std::string partial_;  // a fragmented message's first frames (relays rarely fragment)
  bool frames_pending_ = false;  // read_frames stopped at the event buffer's size

  std::optional<std::string> owner_;
  Clock::time_point owner_checked_{};
  bool owner_lookup_running_ = false;
  struct Sibling {
    bool sibling;
    Clock::time_point expires;
  };
  std::map<std::string, Sibling> siblings_;
  std::map<std::string, std::vector<std::pair<std::string, engine::Event>>> waiting_on_sibling_;

  bool heartbeat_running_ = false;
  Clock::time_point next_heartbeat_{}, next_presence_{}, next_typing_{};
  bool shutdown_ = false;
  int exit_code_ = 0;

  int inbox_fd_ = -1;
  std::mutex inbox_mu_;
  std::deque<std::function<void()>> inbox_;
};

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

void Loop::send(const std::string& text) {
  if (ws_ && !ws_->send_text(text)) schedule_reconnect("send failed");
}

bool Loop::turn_in_flight(const std::string& channel) const {
  return std::any_of(slots_.begin(), slots_.end(),
                     [&](const Slot& s) { return s.state == Slot::State::kBusy && s.channel == channel; });
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

void Loop::lookup_owner() {
  if (owner_lookup_running_ || cfg_.agent_owner) return;  // --agent-owner: nothing to look up
  owner_lookup_running_ = true;
  owner_checked_ = Clock::now();
  pool_->submit([this](RestClient& rest) {
    std::optional<std::string> owner;
    bool ok = true;
    try {
      owner = rest.agent_owner(self_hex_);
    } catch (const std::exception& e) {
      ok = false;
      log(std::string("owner lookup failed: ") + e.what());
    }
    post([this, owner, ok] {
      owner_lookup_running_ = false;
      if (!ok) return;
      if (owner && owner != owner_) log("owner: " + *owner);
      owner_ = owner;
      if (!owner_ && cfg_.respond_to == RespondTo::kOwnerOnly) {
        log("warning: no owner known and --respond-to=owner-only: events are dropped until the owner resolves");
      }
    });
  });
}

std::string Loop::filter_for(const std::string& channel_id, uint64_t since) const {
  const ChannelFilter merged = *channel_filter(rules_, channel_id);
  std::string f = "{";
  if (!merged.kinds.empty()) {
    f += "\"kinds\":[";
    for (size_t i = 0; i < merged.kinds.size(); ++i) f += (i ? "," : "") + std::to_string(merged.kinds[i]);
    f += "],";
  }
  f += "\"#h\":[" + json_string(channel_id) + "],";
  if (merged.require_mention) f += "\"#p\":[\"" + self_hex_ + "\"],";
  return f + "\"since\":" + std::to_string(since) + "}";
}

uint64_t Loop::since_for(const ChannelState& ch) const {
  std::optional<uint64_t> earliest;
  if (ch.last_seen) earliest = ch.last_seen;
  if (auto dropped = queues_.first_dropped(ch.info.id)) earliest = std::min(earliest.value_or(*dropped), *dropped);
  if (earliest) return *earliest > 5 ? *earliest - 5 : 0;
  return ch.first_subscribed ? ch.first_subscribed : watermark_;
}

void Loop::subscribe(ChannelState& ch) {
  if (!channel_filter(rules_, ch.info.id)) return;  // no rule covers it
  if (!ch.first_subscribed) ch.first_subscribed = engine::unix_now();
  ch.subscribed = true;
  send("[\"REQ\",\"ch-" + ch.info.id + "\"," + filter_for(ch.info.id, since_for(ch)) + "]");
}

void Loop::connect_now() {
  if (connecting_) return;
  connecting_ = true;
  if (connector_.joinable()) connector_.join();
  connector_ = std::thread([this] {
    std::string error;
    auto ws = connect_relay(cfg_.relay_url, cfg_.key, token_, &error);
    std::shared_ptr<client::WsClient> shared(std::move(ws));
    post([this, shared, error]() mutable {
      connecting_ = false;
      if (!shared) {
        schedule_reconnect(error);
        return;
      }
      ws_ = std::move(shared);
      on_connected();
    });
  });
}

void Loop::schedule_reconnect(const std::string& why) {
  ws_.reset();
  if (shutdown_ || connecting_ || reconnect_at_ != Clock::time_point{}) return;
  static constexpr int kDelays[] = {1, 2, 4, 8, 16, 32};
  const int step = std::min(reconnect_attempt_, 5);
  ++reconnect_attempt_;
  const auto delay = jittered(seconds(kDelays[step]));
  log("relay connection lost (" + why + "); reconnecting in " +
      std::to_string(std::chrono::duration_cast<milliseconds>(delay).count()) + " ms");
  reconnect_at_ = Clock::now() + delay;
}

void Loop::on_connected() {
  log(std::string(reconnect_attempt_ ? "reconnected to " : "connected to ") + cfg_.relay_url);
  reconnect_attempt_ = 0;
  partial_.clear();
  next_ping_ = Clock::now() + kPingInterval;
  pong_deadline_ = {};
  if (!membership_since_) membership_since_ = watermark_;
  send(R"(["REQ","membership-notif",{"kinds":[44100,44101],"#p":[")" + self_hex_ + R"("],"since":)" +
       std::to_string(membership_since_ > 5 ? membership_since_ - 5 : 0) + "}]");
  for (auto& [id, ch] : channels_) {
    if (ch.subscribed && !ch.removed) subscribe(ch);
  }
}

// ---- relay messages ----------------------------------------------------------

// Frame by frame rather than WsClient::recv, to see the pongs that answer
// our keep-alive pings; pings from the relay are answered here. At most
// BUZZ_ACP_EVENT_BUFFER messages a call: a flood from the relay waits in the
// socket (TCP slows the relay) while the agents' reports and timers get their
// turn, the part the original's bounded event channel played.
void Loop::read_frames() {
  int messages = 0;
  for (frames_pending_ = false; ws_; ) {
    if (messages == cfg_.event_buffer) {
      frames_pending_ = true;  // maybe already in the client's buffer, where poll cannot see them
      return;
    }
    auto f = ws_->recv_frame(0);
    if (!f) {
      if (ws_->closed()) schedule_reconnect("closed by the relay");
      return;
    }
    switch (f->opcode) {
      case net::ws::Opcode::kPing: ws_->send_frame(net::ws::Opcode::kPong, f->payload); break;
      case net::ws::Opcode::kPong: pong_deadline_ = {}; break;
      case net::ws::Opcode::kText:
      case net::ws::Opcode::kBinary:
      case net::ws::Opcode::kContinuation:
        partial_ += f->payload;
        if (f->fin) {
          std::string message = std::move(partial_);
          partial_.clear();
          ++messages;
          on_message(message);
        }
        break;
      default: break;
    }
  }
}

void Loop::on_message(const std::string& text) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::array arr;
  std::string_view verb;
  if (parser.parse(text).get(arr) || arr.size() == 0 || arr.at(0).get(verb)) return;
  if (verb == "EVENT" && arr.size() >= 3) {
    std::string_view sub;
    simdjson::dom::element obj;
    if (arr.at(1).get(sub) || arr.at(2).get(obj)) return;
    auto e = engine::parse_event(obj, simdjson::minify(obj));
    if (!e) return;
    if (!seen_.insert(e->id_hex())) return;  // a replay after a reconnect
    if (sub == kMembershipSub) return on_membership(*e);
    if (sub.starts_with("ch-")) return on_channel_event(std::string(sub.substr(3)), std::move(*e));
    return;
  }
  if (verb == "CLOSED" || verb == "NOTICE") log("relay: " + text);
}

void Loop::on_membership(const engine::Event& e) {
  if (!seen_membership_.insert(e.id_hex())) return;
  const std::string channel(e.first_tag_value("h"));
  if (channel.empty() || (e.kind != 44100 && e.kind != 44101)) return;
  membership_since_ = std::max(membership_since_, e.created_at);
  ChannelState& ch = channels_[channel];
  ch.info.id = channel;
  if (e.created_at < ch.newest_membership) return;  // stale: an older change than one applied
  ch.newest_membership = e.created_at;
  if (e.kind == 44100) {
    if (!cfg_.channels.empty() && std::find(cfg_.channels.begin(), cfg_.channels.end(), channel) == cfg_.channels.end()) return;
    log("added to channel " + channel);
    ch.removed = false;
    if (ws_) subscribe(ch);
    else ch.subscribed = true;  // subscribed on reconnect
    pool_->submit([this, channel](RestClient& rest) {  // its name and type, for prompts
      for (ChannelInfo& info : rest.member_channels()) {
        if (info.id == channel) post([this, info] { channels_[info.id].info = info; });
      }
    });
    return;
  }
  log("removed from channel " + channel);
  if (ch.subscribed) send("[\"CLOSE\",\"ch-" + channel + "\"]");
  ch.subscribed = false;
  ch.removed = true;
  ch.cancelled.clear();
  reactions(queues_.drain(channel), "👀", false);
  forget_sessions(channel);
}

void Loop::forget_sessions(const std::string& channel) {
  for (Slot& s : slots_) {  // each agent drops its session at its next job
    s.drop_sessions.push_back(channel);
    s.sessions.erase(channel);
  }
}

bool Loop::author_allowed(const engine::Event& e, bool* pending) {
  *pending = false;
  const std::string author = e.pubkey_hex();
  switch (cfg_.respond_to) {
    case RespondTo::kAnyone: return true;
    case RespondTo::kNobody: return false;
    case RespondTo::kAllowlist: return (owner_ && author == *owner_) || cfg_.respond_to_allowlist.count(author) > 0;
    case RespondTo::kOwnerOnly: break;
  }
  if (!owner_) {
    if (Clock::now() - owner_checked_ > kOwnerTtl) lookup_owner();
    return false;
  }
  if (author == *owner_) return true;
  // A sibling: another agent of our owner.
  if (auto it = siblings_.find(author); it != siblings_.end() && it->second.expires > Clock::now()) return it->second.sibling;
  *pending = true;
  return false;
}

void Loop::on_channel_event(const std::string& channel, engine::Event e) {
  auto it = channels_.find(channel);
  if (it == channels_.end() || it->second.removed) return;
  ChannelState& ch = it->second;
  ch.last_seen = std::max(ch.last_seen, e.created_at);
  const std::string author = e.pubkey_hex();
  if (cfg_.ignore_self && author == self_hex_) return;
  // Owner commands: !shutdown and !cancel from the owner, mentioning us.
  if (e.kind == 9 && owner_ && author == *owner_) {
    const bool mentions_us = std::any_of(e.tags.begin(), e.tags.end(), [&](const engine::Tag& t) {
      return t.size() >= 2 && t[0] == "p" && t[1] == self_hex_;
    });
    std::string command = e.content;
    command.erase(0, command.find_first_not_of(" \t\r\n"));
    command.erase(command.find_last_not_of(" \t\r\n") + 1);
    if (mentions_us && command == "!shutdown") {
      log("!shutdown from the owner");
      shutdown_ = true;
      return;
    }
    if (mentions_us && (command == "!cancel" || command == "!rotate")) {
      bool found = false;
      for (Slot& s : slots_) {
        if (s.state == Slot::State::kBusy && s.channel == channel) {
          s.agent->cancel();
          found = true;
        }
      }
      if (command == "!rotate") {  // the channel's next turn starts a new session
        forget_sessions(channel);
        log("!rotate in " + channel + ": its sessions are dropped");
      } else if (!found) {
        log("warning: !cancel in " + channel + " but no turn is running there");
      }
      return;
    }
  }
  bool pending = false;
  if (author_allowed(e, &pending)) return after_author_gate(channel, std::move(e));
  if (!pending) return;
  auto& waiting = waiting_on_sibling_[author];
  waiting.emplace_back(channel, std::move(e));
  if (waiting.size() > 1) return;  // a lookup for this author is running
  pool_->submit([this, author](RestClient& rest) {
    try {
      auto their_owner = rest.agent_owner(author);
      post([this, author, their_owner] {
        const bool is = their_owner && owner_ && *their_owner == *owner_;
        if (siblings_.size() >= kSiblingCacheSize) siblings_.clear();
        siblings_[author] = {is, Clock::now() + (is ? kSiblingHitTtl : kSiblingMissTtl)};
        auto events = std::move(waiting_on_sibling_[author]);
        waiting_on_sibling_.erase(author);
        if (!is) return;
        for (auto& [ch, ev] : events) after_author_gate(ch, std::move(ev));
      });
    } catch (const std::exception&) {
      post([this, author] { waiting_on_sibling_.erase(author); });
    }
  });
}

void Loop::after_author_gate(const std::string& channel, engine::Event e) {
  auto it = channels_.find(channel);
  if (it == channels_.end() || it->second.removed) return;
  const Rule* rule = match_rule(rules_, e, channel, self_hex_);
  if (!rule) return;
  const bool busy = turn_in_flight(channel);
  if (cfg_.dedup == Dedup::kDrop && busy) return;
  const std::string author = e.pubkey_hex();
  TaggedEvent tagged{std::move(e), rule->prompt_tag};
  reactions({tagged}, "👀", true);
  queues_.push(channel, std::move(tagged));
  if (busy && (cfg_.multiple == MultipleEvents::kInterrupt ||
               (cfg_.multiple == MultipleEvents::kOwnerInterrupt && owner_ && author == *owner_))) {
    for (Slot& s : slots_) {
      if (s.state == Slot::State::kBusy && s.channel == channel) s.agent->cancel();
    }
  }
  dispatch();
}

// ---- agents --------------------------------------------------------------------

void Loop::reactions(const std::vector<TaggedEvent>& events, const char* emoji, bool add) {
  for (const TaggedEvent& t : events) {
    pool_->submit([id = t.event.id_hex(), emoji = std::string(emoji), add](RestClient& rest) {
      if (add) rest.add_reaction(id, emoji);
      else rest.remove_reaction(id, emoji);
    });
  }
}

void Loop::dispatch() {
  const auto now = Clock::now();
  for (;;) {
    std::optional<std::string> channel = queues_.next_ready(now);
    if (!channel) return;
    // Affinity first: an idle agent that already has a session for the channel.
    Slot* chosen = nullptr;
    for (Slot& s : slots_) {
      if (s.state != Slot::State::kIdle) continue;
      if (s.sessions.count(*channel)) {
        chosen = &s;
        break;
      }
      if (!chosen) chosen = &s;
    }
    if (!chosen) return;
    ChannelState& ch = channels_[*channel];
    SlotJob job;
    job.kind = SlotJob::Kind::kTurn;
    job.channel = ch.info;
    job.channel.id = *channel;
    job.events = queues_.take_batch(*channel, now);
    job.cancelled = std::move(ch.cancelled);
    ch.cancelled.clear();
    job.drop_sessions = std::move(chosen->drop_sessions);
    chosen->drop_sessions.clear();
    chosen->state = Slot::State::kBusy;
    chosen->channel = *channel;
    chosen->batch = job.events;
    chosen->batch.insert(chosen->batch.begin(), job.cancelled.begin(), job.cancelled.end());
    reactions(job.events, "💬", true);
    chosen->agent->run(std::move(job));
    if (cfg_.typing) send_typing_in(*channel);  // at once; the 3 s timer repeats it for every busy channel
  }
}

void Loop::respawn(int index) {
  Slot& s = slots_[size_t(index)];
  const auto now = Clock::now();
  s.crashes.push_back(now);
  while (!s.crashes.empty() && now - s.crashes.front() > seconds(60)) s.crashes.pop_front();
  ++s.consecutive_crashes;
  Clock::duration delay;
  if (s.crashes.size() >= 3) {
    log("agent " + std::to_string(index) + " crashed 3 times within 60 s; waiting 300 s before trying it again");
    delay = seconds(300);
    s.crashes.clear();
  } else {
    delay = jittered(std::min<Clock::duration>(seconds(1) * (1 << std::min(s.consecutive_crashes - 1, 5)), seconds(30)));
  }
  s.state = Slot::State::kRespawning;
  s.sessions.clear();
  s.drop_sessions.clear();
  SlotJob job;
  job.delay = delay;
  s.agent->run(std::move(job));
}

void Loop::on_report(int index, SlotReport r) {
  Slot& s = slots_[size_t(index)];
  s.sessions = r.session_channels;
  if (r.kind == SlotJob::Kind::kSpawn) {
    if (r.started) {
      s.state = Slot::State::kIdle;
      if (s.consecutive_crashes) log("agent " + std::to_string(index) + " restarted");
      dispatch();
    } else if (s.state == Slot::State::kStarting) {
      log("agent " + std::to_string(index) + " failed to start: " + r.detail);
      s.state = Slot::State::kEmpty;
    } else {
      log("agent " + std::to_string(index) + " failed to restart: " + r.detail);
      respawn(index);
    }
    return;
  }
  const bool heartbeat = r.kind == SlotJob::Kind::kHeartbeat;
  if (heartbeat) heartbeat_running_ = false;
  const std::string channel = s.channel;
  std::vector<TaggedEvent> batch = std::move(s.batch);
  s.batch.clear();
  s.channel.clear();
  if (s.stuck) {  // the channel was freed long ago and may have a new turn: leave its queue alone
    s.stuck = false;
    log("the stuck turn in " + channel + " ended: " + ending_name(r.ending));
    reactions(batch, "💬", false);
  } else if (!heartbeat) {
    ChannelState& ch = channels_[channel];
    const bool removed = ch.removed;
    if (r.ending == Ending::kOk) {
      queues_.finish(channel, true);
      reactions(batch, "👀", false);
      reactions(batch, "💬", false);
    } else if (r.ending == Ending::kCancelled) {
      queues_.finish(channel, true);
      if (!removed) ch.cancelled = batch;  // merged into the channel's next prompt
      reactions(batch, "💬", false);
    } else {
      log("turn in " + channel + " failed: " + ending_name(r.ending) + (r.detail.empty() ? "" : ": " + r.detail));
      reactions(batch, "💬", false);
      if (removed || cfg_.dedup == Dedup::kDrop) {
        queues_.finish(channel, false);
        reactions(batch, "👀", false);
      } else if (!queues_.requeue(channel, batch, Clock::now())) {
        reactions(batch, "👀", false);
      }
    }
  }
  if (needs_respawn(r.ending)) {
    respawn(index);
  } else {
    if (r.ending == Ending::kOk) s.consecutive_crashes = 0;
    s.state = Slot::State::kIdle;
  }
  dispatch();
}

// §A.5.1: a batch in flight for max turn + 100 s is stuck. Its agent is
// cancelled and its channel served again; the turn's late report is ignored.
void Loop::on_stuck() {
  for (Slot& s : slots_) {
    if (s.state != Slot::State::kBusy || s.stuck || s.channel.empty() || queues_.in_flight(s.channel)) continue;
    log("warning: the turn in " + s.channel + " is stuck (in flight for over " +
        std::to_string(cfg_.max_turn_duration_s + 100) + " s); cleared");
    s.stuck = true;
    s.agent->cancel();
  }
  dispatch();
}

void Loop::send_typing() {
  next_typing_ = Clock::now() + kTypingInterval;
  std::set<std::string> busy;
  for (const Slot& s : slots_) {
    if (s.state == Slot::State::kBusy && !s.channel.empty()) busy.insert(s.channel);
  }
  for (const std::string& channel : busy) send_typing_in(channel);
}

void Loop::send_typing_in(const std::string& channel) {
  engine::Event e;
  e.kind = 20002;
  e.created_at = engine::unix_now();
  e.tags = {{"h", channel}};
  engine::sign_event(cfg_.key, &e);
  send("[\"EVENT\"," + e.raw + "]");
}

void Loop::heartbeat_tick() {
  next_heartbeat_ = Clock::now() + seconds(cfg_.heartbeat_interval_s);
  if (queues_.any_ready(Clock::now())) return dispatch();
  if (heartbeat_running_) return;
  for (Slot& s : slots_) {
    if (s.state != Slot::State::kIdle) continue;
    SlotJob job;
    job.kind = SlotJob::Kind::kHeartbeat;
    job.heartbeat_text = cfg_.heartbeat_prompt.value_or(heartbeat_prompt(engine::unix_now()));
    job.drop_sessions = std::move(s.drop_sessions);
    s.drop_sessions.clear();
    s.state = Slot::State::kBusy;
    heartbeat_running_ = true;
    s.agent->run(std::move(job));
    return;
  }
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

}  // namespace

int run_harness(Config config) {
  auto rules = rules_for(config);
  if (!rules) {
    log(rules.error());
    return 1;
  }
  Loop loop(std::move(config), std::move(*rules));
  return loop.run();
}

}  // namespace buzz::acp
