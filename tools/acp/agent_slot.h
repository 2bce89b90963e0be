// AgentSlot: one of the harness's N agents (docs/reference/agents-and-cli.md §A.5.2): the
// process, its ACP connection and its sessions (one per channel, one for the
// heartbeat), run by a thread of its own. The harness loop hands a slot one
// job at a time (spawn, a channel's batch, a heartbeat) and hears back when
// it is done; while a turn runs the loop can only cancel it. The slot gathers
// what the prompt needs (thread context, display names) over REST itself,
// so a slow lookup holds up only its own turn.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tools/acp/acp_connection.h"
#include "tools/acp/agent_process.h"
#include "tools/acp/prompt_text.h"

namespace buzz::acp {

class RestClient;

struct SlotSettings {
  std::string agent_command;
  std::vector<std::string> agent_args;
  std::string cwd;
  std::string mcp_servers_json;  // the session/new mcpServers array
  std::optional<std::string> model;
  std::string permission_mode;   // wire value
  std::optional<std::string> initial_message;
  std::optional<std::string> system_prompt;
  std::optional<std::string> base_prompt;  // opens each new session's first prompt
  Clock::duration idle_timeout;
  Clock::duration turn_liveness = std::chrono::seconds(10);  // a silent agent checked this often
  Clock::duration max_turn;
  int max_turns_per_session = 0;
  int context_message_limit = 12;
  std::string rest_url, token, private_key_hex;
};

struct SlotJob {
  enum class Kind { kSpawn, kTurn, kHeartbeat };
  Kind kind = Kind::kSpawn;
  Clock::duration delay{};                 // kSpawn: the respawn backoff, waited first
  ChannelInfo channel;                     // kTurn
  std::vector<TaggedEvent> events, cancelled;
  std::string heartbeat_text;              // kHeartbeat
  std::vector<std::string> drop_sessions;  // channels whose sessions go first (membership removed)
};

struct SlotReport {
  SlotJob::Kind kind = SlotJob::Kind::kSpawn;
  bool started = false;                    // kSpawn: the agent answered initialize
  Ending ending = Ending::kOk;
  std::string stop_reason, detail;
  std::set<std::string> session_channels;  // channels the agent holds a session for now
};

class AgentSlot {
 public:
  using Done = std::function<void(int slot, SlotReport report)>;
  AgentSlot(int index, const SlotSettings& settings, Done done);
  ~AgentSlot();  // ends the thread and kills the agent
  AgentSlot(const AgentSlot&) = delete;
  AgentSlot& operator=(const AgentSlot&) = delete;

  // Starts a job; the slot must be idle (the loop tracks that).
  void run(SlotJob job);
  // Cuts the running prompt short (session/cancel); a no-op between jobs.
  void cancel();

 private:
  struct Session {
    std::string id;
    int turns = 0;
  };

  void loop();
  SlotReport spawn(const SlotJob& job);
  SlotReport turn(const SlotJob& job);
  SlotReport heartbeat(const SlotJob& job);
  // The session for `key` ("" = heartbeat), made with session/new when missing.
  Ending ensure_session(const std::string& key, Session** out, std::string* detail);
  // One prompt on a session, then the rotation rules (§A.5.2).
  SlotReport prompt_on(const std::string& key, const std::string& text);
  PromptInput gather(const SlotJob& job);

  const int index_;
  const SlotSettings settings_;
  const Done done_;
  AgentProcess process_;
  AcpConnection acp_{process_};
  std::map<std::string, Session> sessions_;  // channel → session; "" = heartbeat
  std::unique_ptr<RestClient> rest_;         // made on the slot's thread, at its first turn
  int cancel_fd_ = -1;                       // eventfd: readable = cancel the prompt
  std::atomic<pid_t> running_pid_{-1};       // for the destructor's kill, from another thread

  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<SlotJob> job_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace buzz::acp
