// The calling thread's own CPU time: what the load tool's floors and readers
// report, since on this machine they share the cores with the server.
#pragma once

#include <time.h>

namespace buzz::load {

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

}  // namespace buzz::load
