// AgentProcess: one agent subprocess of the harness (docs/reference/agents-and-cli.md §A.5.2,
// §A.6.1). It runs in its own process group with stdin and stdout piped and
// stderr inherited; lines go in and come out, each wait bounded by a deadline
// and cut short by a wake file descriptor (the turn's cancel signal). Stopping
// it SIGKILLs the whole group, so whatever the agent started dies with it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace buzz::acp {

using Clock = std::chrono::steady_clock;

class AgentProcess {
 public:
  AgentProcess() = default;
  ~AgentProcess() { stop(); }
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  // Starts `command args…` (PATH lookup). False with *error if it could not start.
  bool start(const std::string& command, const std::vector<std::string>& args, std::string* error);
  // SIGKILL to the group, then wait up to 5 s for the leader. Idempotent.
  void stop();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Writes `line` and a newline; false on a broken pipe or when the agent has
  // not taken it within 30 s (§A.6.1 WriteTimeout).
  bool write_line(const std::string& line);

  enum class Read { kLine, kTimeout, kWoken, kEof, kTooLong };
  // The next stdout line (without its newline) into *line, waiting until
  // `deadline` or until `wake_fd` (if >= 0) becomes readable. A line longer
  // than 10,000,000 bytes is a framing error (kTooLong). While the agent is
  // silent, every `liveness` it is checked: an agent that exited while a
  // child it started still holds its stdout is kEof then, not at the deadline.
  Read read_line(std::string* line, Clock::time_point deadline, int wake_fd = -1);
  void set_liveness(Clock::duration every) { liveness_ = every; }

 private:
  // True once the agent itself has exited (reaped here; its group may live on).
  bool leader_exited();

  pid_t pid_ = -1;
  bool reaped_ = false;
  Clock::duration liveness_ = std::chrono::seconds(10);
  int in_ = -1;   // the agent's stdin (we write)
  int out_ = -1;  // the agent's stdout (we read)
  std::string buffered_;  // read but not yet returned
  size_t scanned_ = 0;    // buffered_[0, scanned_) has no newline
};

}  // namespace buzz::acp
