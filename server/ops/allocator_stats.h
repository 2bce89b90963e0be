// What the process's malloc holds: the bytes handed out to the program and the
// bytes the allocator keeps resident for it. RSS beyond the store's bounded
// pools is one of the two; these gauges tell a leak (allocated grows) from an
// allocator that keeps what was freed (held grows, allocated flat).
#pragma once

#include <cstdint>

namespace buzz::server {

struct AllocatorStats {
  const char* allocator = "glibc";  // or "jemalloc": linked (BUZZ_JEMALLOC) or preloaded
  uint64_t allocated = 0;           // live allocations, the program's
  uint64_t held = 0;                // resident pages the allocator keeps, metadata included
};

// jemalloc's stats.allocated / stats.resident when jemalloc is the process's
// malloc; glibc's mallinfo2 (in use; arenas plus mmapped chunks) otherwise.
// Takes the allocator's locks for a moment: for a scrape, not a hot path.
AllocatorStats allocator_stats();

}  // namespace buzz::server
