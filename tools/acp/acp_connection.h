// AcpConnection: JSON-RPC 2.0 with one agent over its stdio, one message per
// line (docs/reference/agents-and-cli.md §A.6). We are the ACP client: we send initialize,
// session/new, session/prompt and the rest; while waiting for an answer we
// serve what the agent asks of us (permission requests get the allow_once
// option at once, any other method -32601) and read its session/update
// notifications. A line that is not a JSON object is a framing error: the
// pipe is no longer trustworthy and the caller respawns the agent.
#pragma once

#include <optional>
#include <string>

#include "tools/acp/agent_process.h"

namespace buzz::acp {

// How a request or a turn ended; the harness decides from this what becomes
// of the batch and of the agent (§A.5.2 outcome table).
enum class Ending {
  kOk,           // answered (a prompt: a normal stop reason)
  kCancelled,    // a prompt answered stopReason "cancelled" after our cancel
  kAppError,     // the agent answered a JSON-RPC error; the pipe is fine
  kTimeout,      // an ordinary request went unanswered; the pipe is fine
  kIdleTimeout,  // a prompt: no line from the agent for the idle timeout
  kHardTimeout,  // a prompt: the turn hit max_turn_duration
  kExited,       // EOF on the agent's stdout
  kTransport,    // a write failed, a line was not JSON-RPC, a bad answer
};
const char* ending_name(Ending e);
// Whether the agent must be respawned after this ending (§A.5.2).
bool needs_respawn(Ending e);

struct Answer {
  Ending ending = Ending::kOk;
  std::string result;       // the result object's JSON when kOk
  std::string detail;       // what went wrong otherwise
  std::string stop_reason;  // session/prompt: lowercased stopReason
};

class AcpConnection {
 public:
  explicit AcpConnection(AgentProcess& process) : process_(process) {}

  // A request and its answer; ordinary requests wait `timeout` (§A.6.1: 60 s).
  Answer request(const std::string& method, const std::string& params_json, Clock::duration timeout);
  bool notify(const std::string& method, const std::string& params_json);
  // initialize, naming buzz-acp and its version; and session/new in `cwd` with
  // these MCP servers (a JSON array). Both wait `timeout`.
  Answer initialize(Clock::duration timeout);
  Answer new_session(const std::string& cwd, const std::string& mcp_servers_json, Clock::duration timeout);

  // session/prompt with one text block. Any line from the agent restarts the
  // idle timer; `hard_deadline` caps the turn. When `cancel_fd` becomes
  // readable we send session/cancel and read on until the prompt answers
  // (30 s idle, the hard deadline or now + 30 s, whichever is later).
  Answer prompt(const std::string& session_id, const std::string& text, Clock::duration idle_timeout,
                Clock::time_point hard_deadline, int cancel_fd);

 private:
  // Reads until the answer to `id` arrives, serving the agent meanwhile.
  // `idle` restarts at every line; `cancel_fd` >= 0 stops the wait early (kCancelled
  // with no result: the caller decides what to do).
  Answer await(long id, Clock::duration idle, Clock::time_point deadline, int cancel_fd, Ending on_idle,
               Ending on_deadline);
  AgentProcess& process_;
  long next_id_ = 1;
};

}  // namespace buzz::acp
