// Thread names and priorities; see thread_role.h.
#include "engine/thread_role.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <string>

namespace buzz::engine {

void set_thread_role(const char* name, ThreadRole role) {
  pthread_setname_np(pthread_self(), std::string(name).substr(0, 15).c_str());
  // On Linux the nice value belongs to the thread, so this touches no other.
  // Best effort: without permission to change it the thread keeps running as is.
  if (role == ThreadRole::kBackground) static_cast<void>(setpriority(PRIO_PROCESS, gettid(), 10));
}

}  // namespace buzz::engine
