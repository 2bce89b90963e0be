// See allocator_stats.h.
#include "server/ops/allocator_stats.h"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdlib>
#include <string>

namespace buzz::server {
namespace {

using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);

// Found at run time, so the same code reads jemalloc linked, preloaded or absent.
Mallctl find_mallctl() {
  static const Mallctl found = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
  return found;
}

uint64_t read_size(Mallctl mallctl, const char* name) {
  size_t value = 0, length = sizeof(value);
  return mallctl(name, &value, &length, nullptr, 0) == 0 ? value : 0;
}

}  // namespace

void return_freed_pages_promptly() {
  Mallctl mallctl = find_mallctl();
  if (!mallctl || std::getenv("MALLOC_CONF")) return;
  ssize_t decay_ms = 1000;
  // Arenas made from now on, then each one made already (the rest answer EFAULT).
  if (mallctl("arenas.dirty_decay_ms", nullptr, nullptr, &decay_ms, sizeof(decay_ms)) != 0) return;
  unsigned arenas = 0;
  size_t length = sizeof(arenas);
  if (mallctl("arenas.narenas", &arenas, &length, nullptr, 0) == 0) {
    for (unsigned i = 0; i < arenas; ++i) {
      const std::string name = "arena." + std::to_string(i) + ".dirty_decay_ms";
      mallctl(name.c_str(), nullptr, nullptr, &decay_ms, sizeof(decay_ms));
    }
  }
  bool on = true;
  mallctl("background_thread", nullptr, nullptr, &on, sizeof(on));
}

AllocatorStats allocator_stats() {
  AllocatorStats s;
  if (Mallctl mallctl = find_mallctl()) {
    uint64_t epoch = 1;  // jemalloc's statistics are a snapshot, refreshed by writing the epoch
    size_t length = sizeof(epoch);
    mallctl("epoch", &epoch, &length, &epoch, length);
    s.allocator = "jemalloc";
    s.allocated = read_size(mallctl, "stats.allocated");
    s.held = read_size(mallctl, "stats.resident");
    return s;
  }
  const struct mallinfo2 m = mallinfo2();
  s.allocated = m.uordblks + m.hblkhd;
  s.held = m.arena + m.hblkhd;
  return s;
}

}  // namespace buzz::server
