// What a process serving connections sets up before its threads start, shared
// by `buzz serve` and `buzz proxy`.
#pragma once

#include <signal.h>

namespace buzz::net {

// SIGINT and SIGTERM blocked in the calling thread, and so in every thread it
// starts afterwards, so that the one calling wait() receives them; SIGPIPE
// ignored, so a peer's reset is an error code on the write and not a signal.
// With `reload`, SIGHUP too (the caller reloads what it can, e.g. TLS).
class StopSignals {
 public:
  explicit StopSignals(bool reload = false);
  // Blocks until SIGINT or SIGTERM (or SIGHUP, if asked for) arrives; returns which.
  int wait() const;
  // The same for at most `ms` milliseconds; 0 when none came.
  int wait_for(int ms) const;

 private:
  sigset_t set_;
};

// Every connection is a descriptor: raises the soft limit on open files to
// the hard limit.
void raise_open_files_limit();

}  // namespace buzz::net
