// buzz-load: drives a real `buzz serve` over loopback and reports the server's
// own CPU per unit of work next to the cost of one bare Schnorr verify measured
// in the same run (docs/performance.md lists the commands and figures).
//
//   buzz-load ingest  --connections 50 --events 20000 [--in-flight 16] [--no-floor]
//   buzz-load fanout  --subscribers 1000 --rate 50 --seconds 10 [--pubsub redis://…] [--in-channel]
//   buzz-load history --events 1000000 --queries 300
//   buzz-load idle    --connections 10000
//   buzz-load channels --channels 200 --members 2000 --per-member 2 --rate 2000 --seconds 10
//   buzz-load messages --events 5000 --connections 32 --seconds 10
//   buzz-load crash    --cycles 50 --connections 4
//   buzz-load soak     --minutes 10 --connections 5000 --rate 500 --csv soak.csv
//   buzz-load workflows --events 20000 --rate 200 --seconds 10
//   buzz-load huddle   --rooms 50 --speakers 4 --rate 50 --seconds 10
//   buzz-load backup   --events 200000 --connections 4 --rate 2000 --seconds 10
// Common: --binary ./build/buzz  --json (one JSON object on stdout)  --tls (over wss://, docs/tls.md)
//
// This file reads the command line and runs one scenario: each has its file
// (ingest_load, fanout_load, channels_load, history_load, messages_load,
// idle_load, crash, soak, workflow_load, cli_load, acp_load, huddle_load, backup_load) and
// what they share is in scenario.h. The adapters below turn Options into the
// arguments of the scenarios that take their own.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/options.h"

#include "tools/load/acp_load.h"
#include "tools/load/backup_load.h"
#include "tools/load/channels_load.h"
#include "tools/load/cli_load.h"
#include "tools/load/crash.h"
#include "tools/load/fanout_load.h"
#include "tools/load/history_load.h"
#include "tools/load/huddle_load.h"
#include "tools/load/idle_load.h"
#include "tools/load/ingest_floor.h"
#include "tools/load/ingest_load.h"
#include "tools/load/messages_load.h"
#include "tools/load/scenario.h"
#include "tools/load/soak.h"
#include "tools/load/workflow_load.h"

namespace {

using namespace buzz::load;
namespace options = buzz::options;

void crash(const Options& o) {
  const std::string dir = temp_dir();
  const int connections = std::min(o.connections, 8);
  auto figures = run_crash({o.binary, dir + "/data", o.cycles, connections, uint32_t(getpid())});
  std::filesystem::remove_all(dir);
  report(o, figures);
  if (figures["missing"] != 0 || figures["audit_verify_ok"] != 1) throw std::runtime_error("an acknowledged event was lost");
}

void soak(const Options& o) {
  ServerProcess server = start_relay(o);
  SoakRun run;
  run.minutes = o.minutes;
  run.connections = o.connections;
  run.rate = o.rate;
  run.csv = o.csv;
  run.progress = !o.json;
  auto usage_before = read_usage(server.pid());
  auto figures = run_soak(run, server);
  report(o, figures, usage_before, read_usage(server.pid()));
  if (!o.json) {  // what the target checks (issue 20 §4), in words
    auto line = [&](const char* what, const std::string& key) {
      std::printf("%s after the warm-up (%.0f s) %.1f MiB -> end %.1f MiB (highest %.1f): %+.1f %%\n", what,
                  figures["warmup_s"], figures[key + "_warm_mib"], figures[key + "_end_mib"], figures[key + "_max_mib"],
                  figures[key + "_growth_pct"]);
    };
    line("RSS", "rss");
    line("RSS beyond the store's bounded pools", "rss_beyond_store_pools");
    const bool flat = figures["rss_beyond_store_pools_growth_pct"] <= 10;
    std::printf("target: RSS beyond the pools within 10 %% %s; %.0f errors, %.0f lost\n", flat ? "met" : "NOT met",
                figures["errors"], figures["lost"]);
  }
  if (figures["errors"] != 0 || figures["lost"] != 0) throw std::runtime_error("the soak saw errors or lost deliveries");
}

// Issue 16's two figures, each on a fresh relay: ingest CPU without and with
// 1,000 workflows evaluating every message, then trigger-to-effect latency.
void workflows(const Options& o) {
  WorkflowLoad w;
  w.messages = o.events;
  w.rate = o.rate;
  w.seconds = o.seconds;
  std::map<std::string, double> figures;
  auto measure = [&](auto&& run) {
    ServerProcess server = start_relay(o);
    return run(server);
  };
  const double plain = measure([&](auto& s) { return run_workflow_overhead(s, w, false); })["server_cpu_us_per_message"];
  const double watched = measure([&](auto& s) { return run_workflow_overhead(s, w, true); })["server_cpu_us_per_message"];
  figures["workflows"] = w.workflows;
  figures["messages"] = w.messages;
  figures["server_cpu_us_per_message_without"] = plain;
  figures["server_cpu_us_per_message_with"] = watched;
  figures["overhead_pct"] = 100 * (watched - plain) / plain;
  for (const auto& [k, v] : measure([&](auto& s) { return run_workflow_latency(s, w); })) figures["trigger_" + k] = v;
  report(o, figures);
  if (figures["trigger_lost"] != 0) throw std::runtime_error("a triggered workflow did not answer");
}

// Issue 18: `buzz send-message` end to end, a process per message.
void cli(const Options& o) {
  setenv("BUZZ_MINT_RATE_LIMIT", "1000000", 1);  // the key-only runs mint once each
  ServerProcess server = start_relay(o);
  report(o, run_cli_load(server, o.binary, o.events));
}

// Issue 18: `buzz acp`, mention → prompt in the agent's hands, 32 agents busy.
void acp(const Options& o, const char* self) {
  ServerProcess server = start_relay(o);
  AcpLoadOptions a;
  a.buzz_binary = o.binary;
  a.self_binary = self;
  a.agents = o.connections;
  a.rounds = o.events;
  report(o, run_acp_load(server, a));
}

void huddle(const Options& o) {
  ServerProcess server = start_relay(o);
  report(o, run_huddle_load(server, {o.rooms, o.speakers, o.rate, o.seconds}));
}

constexpr const char* kUsage =
    "usage: buzz-load ingest|fanout|history|idle|channels|messages|crash|soak|workflows|cli|acp|huddle|backup [options]\n"
    "Starts the relay (--binary) on a fresh data directory, runs the scenario against it and prints its figures\n"
    "beside the floor measured in the same run (docs/performance.md has each command).\n\n";

// The rows of buzz-load, each bound to its field of o; 0 leaves a count to the scenario (main).
std::vector<options::Option> table(Options& o) {
  using options::flag, options::number, options::text;
  return {
      {.name = "binary", .value = "PATH", .default_text = "./build/buzz", .help = "the buzz binary to start",
       .parse = text(&o.binary)},
      {.name = "json", .help = "one JSON object on stdout", .parse = flag(&o.json)},
      {.name = "tls", .help = "the relay serves wss:// (docs/tls.md)", .parse = flag(&o.tls)},
      {.name = "connections", .value = "N", .help = "client connections (agents for acp)", .parse = number(&o.connections)},
      {.name = "events", .value = "N", .help = "events to send (rounds for acp)", .parse = number(&o.events)},
      {.name = "rate", .value = "N", .help = "events per second", .parse = number(&o.rate)},
      {.name = "seconds", .value = "N", .default_text = "10", .help = "length of the measured window",
       .parse = number(&o.seconds)},
      {.name = "subscribers", .value = "N", .default_text = "1000", .help = "fanout: live subscribers",
       .parse = number(&o.subscribers)},
      {.name = "pubsub", .value = "URL", .help = "fanout: two nodes on this Redis", .parse = text(&o.pubsub)},
      {.name = "in-channel", .help = "fanout: kind-9 messages of one open channel, not global notes",
       .parse = flag(&o.in_channel)},
      {.name = "queries", .value = "N", .default_text = "300", .help = "history: queries", .parse = number(&o.queries)},
      {.name = "channels", .value = "N", .default_text = "200", .help = "channels: channels", .parse = number(&o.channels)},
      {.name = "members", .value = "N", .default_text = "2000", .help = "channels: members", .parse = number(&o.members)},
      {.name = "per-member", .value = "N", .default_text = "2", .help = "channels: channels each member is in",
       .parse = number(&o.per_member)},
      {.name = "in-flight", .value = "N", .default_text = "16", .help = "ingest: EVENTs each connection keeps unanswered",
       .parse = number(&o.in_flight, 1, INT_MAX)},
      {.name = "no-floor", .help = "ingest: skip the ingest floor", .parse = [&o](const std::string&) {
         o.floor = false;
         return std::string();
       }},
      {.name = "cycles", .value = "N", .default_text = "50", .help = "crash: kill -9 cycles",
       .parse = number(&o.cycles, 1, INT_MAX)},
      {.name = "minutes", .value = "N", .default_text = "10", .help = "soak: minutes",
       .parse = number(&o.minutes, 1, INT_MAX)},
      {.name = "csv", .value = "FILE", .help = "soak: where the per-second samples go", .parse = text(&o.csv)},
      {.name = "rooms", .value = "N", .default_text = "50", .help = "huddle: rooms", .parse = number(&o.rooms, 1, INT_MAX)},
      {.name = "speakers", .value = "N", .default_text = "4", .help = "huddle: speakers per room",
       .parse = number(&o.speakers, 2, 25)},
  };
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc >= 2 && std::string(argv[1]) == "acp-agent") return run_acp_bench_agent(argc, argv);
  if (argc == 6 && std::string(argv[1]) == "ingest-floor-serve") return serve_ingest_floor(uint16_t(std::stoi(argv[3])), argv[5]);
  const std::vector<options::Option> rows = table(o);
  options::Parsed parsed = options::parse(rows, argc, argv, 1, {.positional = true});
  if (parsed.outcome == options::Parsed::Outcome::kHelp) {
    return std::printf("%sOptions:\n%s", kUsage, options::help(rows).c_str()), 0;
  }
  if (parsed.ok() && parsed.positional.size() > 1) {
    parsed.error = "unexpected argument '" + parsed.positional[1] + "' found";
  } else if (parsed.ok() && parsed.positional.empty()) {
    return std::fputs(kUsage, stderr), options::kExitUsage;
  }
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "buzz-load: %s (buzz-load --help lists the options)\n", parsed.error.c_str());
    return options::kExitUsage;
  }
  o.scenario = parsed.positional[0];
  const bool backup = o.scenario == "backup";
  if (o.connections <= 0) o.connections = o.scenario == "soak" ? 5000 : o.scenario == "history" ? 8 : o.scenario == "acp" ? 32 : backup ? 4 : 50;
  if (o.events <= 0) o.events = o.scenario == "cli" ? 200 : o.scenario == "acp" ? 20 : backup ? 200000 : 20000;
  if (o.rate <= 0) o.rate = o.scenario == "soak" ? 500 : o.scenario == "workflows" ? 200 : backup ? 2000 : 50;
  rlimit lim;
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
  try {
    if (o.scenario == "ingest") run_ingest(o);
    else if (o.scenario == "fanout") run_fanout(o);
    else if (o.scenario == "history") run_history(o);
    else if (o.scenario == "idle") run_idle(o);
    else if (o.scenario == "channels") run_channels(o);
    else if (o.scenario == "messages") run_messages(o);
    else if (o.scenario == "crash") crash(o);
    else if (o.scenario == "soak") soak(o);
    else if (o.scenario == "workflows") workflows(o);
    else if (o.scenario == "cli") cli(o);
    else if (o.scenario == "acp") acp(o, std::filesystem::read_symlink("/proc/self/exe").c_str());
    else if (o.scenario == "huddle") huddle(o);
    else if (backup) run_backup_load(o);
    else return std::fprintf(stderr, "buzz-load: unknown scenario %s\n", o.scenario.c_str()), 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "buzz-load: %s\n", e.what());
    return 1;
  }
  return 0;
}
