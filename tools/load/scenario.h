// What the scenarios of `buzz-load` share (buzz_load.cpp parses the command
// line into Options and hands them to one): a fresh data directory and port
// for the relay, the bare verify every figure is read against, the store's
// counters, and the report on stdout (text, or one JSON object).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/client/ws_client.h"
#include "tools/load/latency_readers.h"
#include "tools/load/server_process.h"

namespace buzz::load {

struct Options {
  std::string scenario;
  std::string binary = "./build/buzz";
  int connections = 0;  // 0: the scenario's own default (main)
  int events = 0;  // 0: the scenario's own default (main)
  int subscribers = 1000;
  int rate = 0;  // 0: the scenario's own default (main)
  int seconds = 10;
  int queries = 300;
  int channels = 200;
  int members = 2000;
  int per_member = 2;  // channels each member belongs to (and subscribes to)
  int rooms = 50;      // huddle
  int speakers = 4;    // huddle: peers per room, each speaking
  int in_flight = 16;  // ingest: EVENTs each connection keeps unanswered
  bool floor = true;   // ingest: also run the ingest floor (tools/load/ingest_floor.h)
  int cycles = 50;     // crash: kill -9 cycles
  int minutes = 10;    // soak
  std::string csv;     // soak: where the per-second samples go
  std::string pubsub;  // fanout: two nodes on this Redis, subscribers on one, the publisher on the other
  bool in_channel = false;  // fanout: kind-9 messages of one open channel (recorded for receipts), not global notes
  bool tls = false;    // the relay serves wss:// (docs/tls.md) and every client connects over TLS
  bool json = false;
};

// Below Linux's ephemeral range (32768–60999): a port drawn from it can be held
// by some outgoing connection, and the server would then refuse to start.
uint16_t pick_port();

// An empty directory of this run under the system's temporary directory.
std::string temp_dir();

// The relay of a scenario: o.binary on a fresh temp_dir(), at pick_port().
ServerProcess start_relay(const Options& o);

// Median cost of one libsecp256k1 verify, measured here so every figure can be
// read as a multiple of it. CPU time of this thread, as the relay's figures are
// CPU time: on two shared cores a wall-clock loop also counts the time it
// waited for a core (at load average 12, 53 µs against 35 µs of CPU).
double verify_us();

// The store writer's group-commit counters from the relay's /metrics.
struct BatchCounters {
  double batches = 0, jobs = 0;
  double search_overflowed = 0;  // events the search feeder re-reads from the store (its queue was full)
};
BatchCounters scrape_batches(const ServerProcess& server);

// Waits until every stored event is searchable (the index's lag is 0), so the
// relay's CPU is counted over all the work the events made, and returns the
// seconds that took after the last OK.
double wait_until_searchable(const ServerProcess& server);

// Each thread role's share of the CPU between two readings (prefix + role:
// cpu_pct_buzz-loop, cpu_pct_buzz-audit, …): which part of the relay the work went to.
void add_cpu_shares(const ProcessUsage& before, const ProcessUsage& after, const std::string& prefix,
                    std::map<std::string, double>* figures);

void report(const Options& o, const std::map<std::string, double>& figures);
// The same, adding the server's CPU shares by thread role (cpu_pct_*) between
// the two readings of the measured window.
void report(const Options& o, std::map<std::string, double> figures, const ProcessUsage& before, const ProcessUsage& after);

// Live deliveries to `subs` (latency_readers.h), each WebSocket client handing
// over its socket and what it had already read.
Deliveries read_deliveries(const std::vector<std::unique_ptr<client::WsClient>>& subs,
                           const std::vector<std::atomic<double>>& sent_at, size_t expected, double deadline);

}  // namespace buzz::load
