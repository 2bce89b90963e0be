// See allocator_stats.h.
#include "server/ops/allocator_stats.h"

#include <dlfcn.h>
#include <malloc.h>

#include <cstddef>

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
