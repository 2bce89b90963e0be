// Test fixture helper: runs the real buzz server binary as a child process
// (`<BUZZ_BINARY> serve --bind 127.0.0.1:<port> --data-dir <dir> ...`),
// waits for GET /health to answer 200, and stops it again. Used by the
// end-to-end tests only. It assumes nothing else about the server.
// Invariants: a started child is always reaped (destructor or kill_hard),
// and a temp dir this object created is removed only when it is destroyed.
// The child gets PR_SET_PDEATHSIG=SIGKILL, which fires when the *thread*
// that started it exits, so start relays from the test's main thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/client/ws_client.h"

namespace buzz::test {

struct RelayOptions {
  std::vector<std::string> extra_args;  // appended after the fixed arguments
  std::vector<std::pair<std::string, std::string>> env;  // added/overridden
  std::string data_dir;  // empty = fresh temp dir, removed at destruction
};

class RelayProcess {
 public:
  // Starts the server on a free 127.0.0.1 port with the extra args and env,
  // and waits (up to 10 s) until GET /health on that port answers 200. The
  // binary path comes from env BUZZ_BINARY. Returns nullptr + *error on
  // failure; the error includes the tail of the child's output. With `tls`,
  // the relay serves TLS (its --tls-cert among the extra args) and is
  // reached with these options (probes, NostrClient, relay_url()).
  static std::unique_ptr<RelayProcess> start(const RelayOptions& opts,
                                             std::string* error,
                                             std::optional<client::TlsOptions> tls = std::nullopt);
  // SIGTERM, wait up to 5 s, then SIGKILL; removes the temp dir it created
  // (kept, with its path printed, if env BUZZ_KEEP_TEST_DIRS is set).
  ~RelayProcess();
  RelayProcess(const RelayProcess&) = delete;
  RelayProcess& operator=(const RelayProcess&) = delete;

  uint16_t port() const { return port_; }
  const std::string& data_dir() const { return data_dir_; }
  pid_t pid() const { return pid_; }
  // How to reach it over TLS (RelayOptions::tls), or null.
  const client::TlsOptions* tls() const { return tls_ ? &*tls_ : nullptr; }

  // SIGKILL and reap, for crash tests. The data dir is kept until this
  // object is destroyed, so a second relay can be started on it meanwhile.
  void kill_hard();
  // SIGTERM and reap: true if the relay shut down by itself, with exit code 0,
  // within the grace period (a test that relies on a clean shutdown asserts it).
  bool terminate();
  // Sends nothing and reaps: true if the relay exits by itself (after a signal
  // the test sent) with code 0 within timeout_ms; killed past it.
  bool wait_exit(int timeout_ms);
  // Moves the relay's clock forward by `seconds` through its control socket
  // (the relay started with env BUZZ_TEST_CLOCK=1), and this process's with
  // it, so what the test signs keeps to the relay's time; this process's is
  // moved back when the relay is destroyed. False with *error if refused.
  // A relay started with BUZZ_TEST_CLOCK=1 while this process's clock runs
  // ahead starts that far ahead too.
  bool advance_clock(uint64_t seconds, std::string* error);

  std::string relay_url() const;  // "ws://127.0.0.1:<port>", wss:// over TLS
  // Everything the child wrote to stdout and stderr so far (one log file
  // in this object's temp dir).
  std::string stderr_text() const;

 private:
  RelayProcess() = default;
  bool spawn(const std::string& binary, const RelayOptions& opts,
             std::string* error);
  // The relay's clock alone (advance-clock on its control socket).
  bool move_relay_clock(uint64_t seconds, std::string* error);
  // Polls /health until our child says it listens and 200 comes, the child
  // exits, or timeout_ms passes.
  bool wait_healthy(int timeout_ms, bool* child_exited, std::string* error);
  // Whether this attempt's child has printed that it listens on port_: the
  // port came from free_tcp_port, so another test's relay may hold it, answer
  // /health, and our child fail to bind only later.
  bool says_it_listens() const;
  // Sends sig, then reaps; waits up to grace_ms before escalating to SIGKILL.
  // Returns the wait status, or -1 when it had to escalate or nothing ran.
  int stop(int sig, int grace_ms);
  std::string log_tail(size_t max_bytes) const;

  pid_t pid_ = -1;
  bool running_ = false;  // spawned and not yet reaped
  uint16_t port_ = 0;
  std::string temp_root_;  // ours: holds the log and maybe the data dir
  std::string data_dir_;
  std::string log_path_;
  std::streamoff attempt_log_start_ = 0;  // where this attempt's output begins in log_path_
  std::optional<client::TlsOptions> tls_;
  uint64_t clock_advanced_ = 0;  // seconds, this process's share (advance_clock)
};

// Binds port 0 on 127.0.0.1 and returns the port the kernel chose (0 on
// failure). The port is released again, so a race with others is possible.
uint16_t free_tcp_port();
// A listening socket on 127.0.0.1 at a port the kernel chose (*port); -1 on failure.
int listen_loopback(uint16_t* port);

// Runs a shell command and returns its stdout and stderr; *status gets the
// exit code (-1 if it did not exit normally).
std::string run_command(const std::string& command, int* status);

// run_command of `$BUZZ_BINARY <args>` (an offline subcommand).
std::string run_buzz(const std::string& args, int* status);

}  // namespace buzz::test
