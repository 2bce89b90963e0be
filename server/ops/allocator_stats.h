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

// For a long-running server (`buzz serve`, at start): jemalloc returns freed
// pages from a background thread about a second after they are freed. By
// default it keeps them 10 s and returns them only when the same arena next
// allocates, so a thread that goes quiet after a burst (a loop, a memtable
// flush) keeps its pages: in the 10-minute soak that swung RSS by 8–31 MiB;
// with this it holds 8–11 MiB (docs/performance.md, "Soak").
// The offline commands keep jemalloc's defaults (an import pays ~0.2 s of
// page faults for prompt returns it does not need). MALLOC_CONF in the
// environment wins: nothing is changed when it is set.
void return_freed_pages_promptly();

}  // namespace buzz::server
