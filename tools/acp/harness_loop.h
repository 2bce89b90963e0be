// The harness's Loop (harness.h), declared for the files that each hold one
// concept of it: harness.cpp (start-up, the inbox and the wait that
// coordinates the rest), harness_reconnect.cpp (the relay connection, its
// reconnects and subscriptions, the frames read), harness_membership.cpp
// (channels joined and left), harness_author_gate.cpp (owner commands and who
// may be answered), harness_dispatch.cpp (turns to agents and their outcomes),
// harness_respawn.cpp (agents restarted after a crash) and harness_typing.cpp.
// Every member runs on the loop thread; other threads reach it only through
// post(). Not for use outside tools/acp/harness*.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tools/acp/acp_config.h"
#include "tools/acp/agent_slot.h"
#include "tools/acp/channel_queue.h"
#include "tools/acp/rest_pool.h"
#include "tools/acp/rules.h"
#include "tools/cli/session.h"
#include "tools/client/ws_client.h"

namespace buzz::acp::harness {

using std::chrono::milliseconds;
using std::chrono::seconds;

inline constexpr const char* kMembershipSub = "membership-notif";
inline constexpr auto kPingInterval = std::chrono::seconds(30);
inline constexpr auto kTypingInterval = std::chrono::seconds(3);
inline constexpr size_t kIdGeneration = 6000, kMembershipGeneration = 1000;

void log(const std::string& text);
// d × a uniform draw from [0.8, 1.2]: restarts and reconnects do not fall in step.
Clock::duration jittered(Clock::duration d);

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
  // harness.cpp. Inbox: closures from other threads, run on the loop.
  void post(std::function<void()> fn);
  void run_inbox();
  bool start_agents();

  // harness_reconnect.cpp
  void connect_now();
  void on_connected();
  void schedule_reconnect(const std::string& why);
  void subscribe(ChannelState& ch);
  std::string filter_for(const std::string& channel_id, uint64_t since) const;
  uint64_t since_for(const ChannelState& ch) const;
  void send(const std::string& text);
  void read_frames();
  void on_message(const std::string& text);

  // harness_membership.cpp
  void on_membership(const engine::Event& e);
  void forget_sessions(const std::string& channel);

  // harness_author_gate.cpp
  void on_channel_event(const std::string& channel, engine::Event e);
  void after_author_gate(const std::string& channel, engine::Event e);
  bool author_allowed(const engine::Event& e, bool* pending);
  void lookup_owner();

  // harness_dispatch.cpp
  void dispatch();
  void on_stuck();
  Clock::duration in_flight_deadline() const { return std::chrono::seconds(cfg_.max_turn_duration_s + 100); }
  void on_report(int slot, SlotReport report);
  void heartbeat_tick();
  void reactions(const std::vector<TaggedEvent>& events, const char* emoji, bool add);
  bool turn_in_flight(const std::string& channel) const;

  // harness_respawn.cpp
  void on_spawn_report(int slot, const SlotReport& report);
  void respawn(int slot);

  // harness_typing.cpp
  void send_typing();
  void send_typing_in(const std::string& channel);

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

}  // namespace buzz::acp::harness
