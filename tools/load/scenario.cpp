// What the scenarios share; see scenario.h.
#include "tools/load/scenario.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/signature.h"
#include "tools/client/http_client.h"
#include "tools/load/load_client.h"
#include "tools/load/thread_cpu.h"

namespace buzz::load {

uint16_t pick_port() { return uint16_t(20000 + (getpid() % 12000)); }

std::string temp_dir() {
  auto d = std::filesystem::temp_directory_path() / ("buzz-load-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

ServerProcess start_relay(const Options& o) { return ServerProcess(o.binary, temp_dir(), pick_port(), false, o.tls); }

double verify_us() {
  const engine::Event e = engine::signed_event(engine::generate_keypair(), kind::kTextNote, engine::unix_now(), {}, "x");
  const int rounds = 11, n = 200;
  std::vector<double> per_verify;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = thread_cpu_seconds();
    for (int i = 0; i < n; ++i) engine::verify_signature(e.id, e.pubkey, e.sig);
    per_verify.push_back((thread_cpu_seconds() - t0) * 1e6 / n);
  }
  std::sort(per_verify.begin(), per_verify.end());
  return per_verify[rounds / 2];
}

BatchCounters scrape_batches(const ServerProcess& server) {
  client::HttpClient http(server.port());
  const std::string page = http.call("GET", "/metrics").body;
  return {metric_value(page, "buzz_store_batches_total"), metric_value(page, "buzz_store_batched_jobs_total"),
          metric_value(page, "buzz_search_overflowed_total")};
}

double wait_until_searchable(const ServerProcess& server) {
  client::HttpClient http(server.port());
  const auto start = std::chrono::steady_clock::now();
  while (metric_value(http.call("GET", "/metrics").body, "buzz_search_lag_ms") > 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(10)) {
      throw std::runtime_error("the search index did not catch up within 10 minutes");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void add_cpu_shares(const ProcessUsage& before, const ProcessUsage& after, const std::string& prefix,
                    std::map<std::string, double>* figures) {
  const double total = after.cpu_seconds - before.cpu_seconds;
  for (const auto& [role, cpu] : after.cpu_by_thread) {
    const auto was = before.cpu_by_thread.find(role);
    const double used = cpu - (was == before.cpu_by_thread.end() ? 0 : was->second);
    if (total > 0 && used > 0) (*figures)[prefix + role] = 100 * used / total;
  }
}

void report(const Options& o, const std::map<std::string, double>& figures) {
  if (o.json) {
    JsonFields line;
    line.string("scenario", o.scenario);
    for (auto& [k, v] : figures) line.decimal(k, v, 3);
    std::printf("%s\n", line.str().c_str());
    return;
  }
  std::printf("scenario: %s\n", o.scenario.c_str());
  for (auto& [k, v] : figures) std::printf("  %-34s %12.3f\n", k.c_str(), v);
}

void report(const Options& o, std::map<std::string, double> figures, const ProcessUsage& before, const ProcessUsage& after) {
  add_cpu_shares(before, after, "cpu_pct_", &figures);
  report(o, figures);
}

Deliveries read_deliveries(const std::vector<std::unique_ptr<client::WsClient>>& subs,
                           const std::vector<std::atomic<double>>& sent_at, size_t expected, double deadline) {
  std::vector<int> sockets;
  std::vector<std::string_view> buffered;
  std::vector<SSL*> tls;
  for (const auto& sub : subs) {
    sockets.push_back(sub->fd());
    buffered.push_back(sub->buffered());
    tls.push_back(sub->ssl());
  }
  return read_deliveries(sockets, buffered, sent_at, expected, deadline, tls);
}

}  // namespace buzz::load
