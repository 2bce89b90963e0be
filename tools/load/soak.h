// `buzz-load soak`: proof that the relay holds steady under every kind of work
// at once for minutes. Thousands of authenticated connections subscribe to
// open channels while publishers post into them at a fixed rate, other clients
// read channel history over WebSocket and over REST; once a second the relay's
// RSS, CPU and the store's memory pools are sampled into a CSV (tools/load/soak.gp
// draws it). The verdict: 0 errors, 0 deliveries lost, and RSS beyond the
// store's bounded pools, after the warm-up, within 10 % of where the warm-up
// left it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tools/load/server_process.h"

namespace buzz::load {

struct SoakRun {
  int minutes = 10;
  int connections = 5000;  // in all: subscribers, plus the publishers and readers below
  int channels = 100;      // each subscriber follows one
  int rate = 500;          // messages posted per second, over every channel
  int queries_per_s = 20;  // history REQs, limit 50
  int rest_per_s = 20;     // GET /api/channels/{id}/messages
  std::string csv;         // samples: second, rss_mib, cpu_pct, posted, delivered
  bool progress = true;    // a line on stderr each second
};

// Figures: connections, posted, refused, deliveries_expected, deliveries_received,
// lost, p50_ms, p99_ms, queries, rest_calls, errors, cpu_pct_mean; the warm-up's
// length (warmup_s) and, after it, RSS and RSS beyond the store's bounded pools
// (block cache and memtables) where the warm-up left them, at the end, at their
// highest and the growth (rss_*, rss_beyond_store_pools_*: 30-second medians);
// what the rest is made of (heap_beyond_store_pools_*, allocator_kept_*,
// table_readers_end_mib, rss_file_end_mib). Throws std::runtime_error if the
// setup fails.
std::map<std::string, double> run_soak(const SoakRun& run, const ServerProcess& server);

}  // namespace buzz::load
