// start_child: the one way the end-to-end tests and the load tool start a
// program (the relay, the CLI, the agent harness, the ingest floor): its
// arguments, an environment made from ours, its three standard streams on
// files or ours, and optionally a signal it gets when its parent goes. The
// caller owns the pid: it waits for it (and kills it first if it must).
// Invariant: between fork and exec the child calls only async-signal-safe
// functions (the caller may be multi-threaded); everything it needs is built
// before the fork. Without a death signal there is no fork: posix_spawn.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace buzz::client {

// Environment entries: name, value.
using Environment = std::vector<std::pair<std::string, std::string>>;

struct ChildSpec {
  std::vector<std::string> args{};  // args[0]: the program's path (no PATH lookup)
  // The child's environment: ours, less every variable whose name starts with
  // `drop_prefix` (when not empty: "BUZZ_" keeps the caller's settings out),
  // with `env` added, each replacing ours of the same name.
  std::string drop_prefix{};
  Environment env{};
  // Files for the child's stdin, stdout and stderr; empty: ours. Output files
  // are created, and appended to if `append`, else truncated; stdout and
  // stderr naming one path share one open file.
  std::string stdin_path{}, stdout_path{}, stderr_path{};
  bool append = false;
  // PR_SET_PDEATHSIG: what the child gets when the *thread* that started it
  // exits (0: nothing), so a test or load run that dies takes it along.
  int death_signal = 0;
};

// Starts the child with an empty signal mask and SIGTERM, SIGINT, SIGPIPE and
// SIGCHLD at their defaults, and returns its pid once it runs the program.
// -1 and *error if it could not start (a file would not open, or the program
// could not be run: a child that got that far is reaped here).
pid_t start_child(const ChildSpec& spec, std::string* error);

}  // namespace buzz::client
