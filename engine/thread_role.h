// Names the calling thread (so `top -H` and perf show what each one is) and
// sets its CPU priority by role. Background work — search indexing, the audit
// chain's fsyncs, RocksDB flushes and compactions — never answers a client
// directly, so on a small machine it yields the cores to the network loops and
// the store writer, whose delays are what clients see as latency.
#pragma once

namespace buzz::engine {

enum class ThreadRole {
  kForeground,  // network loops, the store writer: normal priority
  kBackground,  // nice +10 (only this thread)
};

// `name` is cut to the 15 characters Linux keeps.
void set_thread_role(const char* name, ThreadRole role);

}  // namespace buzz::engine
