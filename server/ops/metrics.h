// Prometheus text exposition (GET /metrics): the relay's counters and gauges,
// read from the atomics the threads keep anyway, so a scrape takes no lock on
// any hot path. Names follow the upstream set where the meaning matches
// (docs/reference/rest-api.md §3.16).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/audit_log.h"
#include "engine/rocks_database.h"
#include "net/loop.h"
#include "server/feeds/search_feeder.h"
#include "server/pipeline/relay_stats.h"
#include "server/pipeline/store_writer.h"

namespace buzz::server {

struct MetricsSources {
  const RelayStats* relay = nullptr;
  const std::atomic<int64_t>* connections = nullptr;  // open connections across loops
  const engine::AuditMetrics* audit = nullptr;
  const StoreWriter* writer = nullptr;
  const SearchFeeder* search = nullptr;
  std::vector<const net::Loop*> loops;  // their counters, summed
  const engine::RocksDatabase* store = nullptr;  // its memory pools
  // Exposition text of rooms above this one (the workflows), appended as it is.
  std::function<std::string()> more;
  const net::SendMemory* send_memory = nullptr;  // bytes queued for clients, as of each loop's last tick
};

std::string render_metrics(const MetricsSources& m);
// GET /metrics: the same text as a Prometheus response (the main port and the metrics port).
net::HttpResponse metrics_page(const MetricsSources& m);

}  // namespace buzz::server
