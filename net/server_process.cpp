#include "net/server_process.h"

#include <pthread.h>
#include <sys/resource.h>

namespace buzz::net {

StopSignals::StopSignals(bool reload) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  if (reload) sigaddset(&set_, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

int StopSignals::wait() const {
  int sig = 0;
  sigwait(&set_, &sig);
  return sig;
}

int StopSignals::wait_for(int ms) const {
  const timespec timeout{ms / 1000, long(ms % 1000) * 1'000'000};
  const int sig = sigtimedwait(&set_, nullptr, &timeout);
  return sig > 0 ? sig : 0;
}

void raise_open_files_limit() {
  rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
}

}  // namespace buzz::net
