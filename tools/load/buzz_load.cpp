// buzz-load: drives a real `buzz serve` over loopback and reports the server's
// own CPU per unit of work next to the cost of one bare Schnorr verify measured
// in the same run (docs/performance.md lists the commands and figures).
//
//   buzz-load ingest  --connections 50 --events 20000 [--in-flight 16] [--no-floor]
//   buzz-load fanout  --subscribers 1000 --rate 50 --seconds 10 [--pubsub redis://…]
//   buzz-load history --events 1000000 --queries 300
//   buzz-load idle    --connections 10000
//   buzz-load channels --channels 200 --members 2000 --per-member 2 --rate 2000 --seconds 10
//   buzz-load messages --events 5000 --connections 32 --seconds 10
//   buzz-load crash    --cycles 50 --connections 4
//   buzz-load soak     --minutes 10 --connections 5000 --rate 500 --csv soak.csv
//   buzz-load workflows --events 20000 --rate 200 --seconds 10
//   buzz-load huddle   --rooms 50 --speakers 4 --rate 50 --seconds 10
// Common: --binary ./build/buzz  --json (one JSON object on stdout)
#include <unistd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"
#include "tools/client/ws_client.h"
#include "tools/load/crash.h"
#include "tools/load/http_client.h"
#include "tools/load/huddle_load.h"
#include "tools/load/ingest_floor.h"
#include "tools/load/load_client.h"
#include "tools/load/ready_set.h"
#include "tools/load/fanout_floor.h"
#include "tools/load/send_floor.h"
#include "tools/load/soak.h"
#include "tools/load/latency_readers.h"
#include "tools/load/thread_cpu.h"
#include "tools/load/workflow_load.h"
#include "tools/load/acp_load.h"
#include "tools/load/cli_load.h"
#include "tools/load/server_process.h"

namespace {

using namespace buzz;
using load::connect_authed;
using load::send_all;
using load::sleep_until_s;
using load::note;
using load::now_s;
using load::percentile_ms;
using load::query;
using load::ReadySet;
using Clock = std::chrono::steady_clock;

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
  bool json = false;
};

// Below Linux's ephemeral range (32768–60999): a port drawn from it can be held
// by some outgoing connection, and the server would then refuse to start.
uint16_t pick_port() { return uint16_t(20000 + (getpid() % 12000)); }

// Median cost of one libsecp256k1 verify, measured here so every figure can be
// read as a multiple of it. CPU time of this thread, as the relay's figures are
// CPU time: on two shared cores a wall-clock loop also counts the time it
// waited for a core (at load average 12, 53 µs against 35 µs of CPU).
double verify_us() {
  engine::Event e;
  e.kind = 1;
  e.created_at = engine::unix_now();
  e.content = "x";
  engine::sign_event(engine::generate_keypair(), &e);
  const int rounds = 11, n = 200;
  std::vector<double> per_verify;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = load::thread_cpu_seconds();
    for (int i = 0; i < n; ++i) engine::verify_signature(e.id, e.pubkey, e.sig);
    per_verify.push_back((load::thread_cpu_seconds() - t0) * 1e6 / n);
  }
  std::sort(per_verify.begin(), per_verify.end());
  return per_verify[rounds / 2];
}

// The store writer's group-commit counters from the relay's /metrics.
struct BatchCounters {
  double batches = 0, jobs = 0;
  double search_overflowed = 0;  // events the search feeder re-reads from the store (its queue was full)
};
BatchCounters scrape_batches(const load::ServerProcess& server) {
  load::HttpClient http(server.port());
  const std::string page = http.call("GET", "/metrics").body;
  return {load::metric_value(page, "buzz_store_batches_total"), load::metric_value(page, "buzz_store_batched_jobs_total"),
          load::metric_value(page, "buzz_search_overflowed_total")};
}

// Waits until every stored event is searchable (the index's lag is 0), so the
// relay's CPU is counted over all the work the events made, and returns the
// seconds that took after the last OK.
double wait_until_searchable(const load::ServerProcess& server) {
  load::HttpClient http(server.port());
  const auto start = std::chrono::steady_clock::now();
  while (load::metric_value(http.call("GET", "/metrics").body, "buzz_search_lag_ms") > 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(10)) {
      throw std::runtime_error("the search index did not catch up within 10 minutes");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void report(const Options& o, const std::map<std::string, double>& figures) {
  if (o.json) {
    std::printf("{\"scenario\":\"%s\"", o.scenario.c_str());
    for (auto& [k, v] : figures) std::printf(",\"%s\":%.3f", k.c_str(), v);
    std::printf("}\n");
    return;
  }
  std::printf("scenario: %s\n", o.scenario.c_str());
  for (auto& [k, v] : figures) std::printf("  %-34s %12.3f\n", k.c_str(), v);
}

// The same, adding each thread role's share of the server CPU between the two
// readings of the measured window (cpu_pct_buzz-loop, cpu_pct_buzz-audit, …):
// which part of the relay the work went to.
void report(const Options& o, std::map<std::string, double> figures, const load::ProcessUsage& before,
            const load::ProcessUsage& after) {
  const double total = after.cpu_seconds - before.cpu_seconds;
  for (const auto& [role, cpu] : after.cpu_by_thread) {
    const auto was = before.cpu_by_thread.find(role);
    const double used = cpu - (was == before.cpu_by_thread.end() ? 0 : was->second);
    if (total > 0 && used > 0) figures["cpu_pct_" + role] = 100 * used / total;
  }
  report(o, figures);
}

// Live deliveries to `subs` (latency_readers.h), each WebSocket client handing
// over its socket and what it had already read.
load::Deliveries read_deliveries(const std::vector<std::unique_ptr<client::WsClient>>& subs,
                                 const std::vector<std::atomic<double>>& sent_at, size_t expected, double deadline) {
  std::vector<int> sockets;
  std::vector<std::string_view> buffered;
  for (const auto& sub : subs) {
    sockets.push_back(sub->fd());
    buffered.push_back(sub->buffered());
  }
  return load::read_deliveries(sockets, buffered, sent_at, expected, deadline);
}

std::string temp_dir() {
  auto d = std::filesystem::temp_directory_path() / ("buzz-load-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

// What one ingest run saw from its client side.
struct IngestRun {
  size_t oks = 0, accepted = 0, notices = 0;
  double elapsed_s = 0;
};

// Sends each connection's frames, keeping at most `window` of them unanswered
// as a client library would, and reads the answers until every EVENT has its
// OK. A connection the server closes ends the run with an error, rather than
// leaving the senders waiting for answers that cannot come.
IngestRun drive_ingest(const std::vector<std::unique_ptr<client::WsClient>>& conns,
                       const std::vector<std::vector<std::string>>& frames, int window, size_t events) {
  std::vector<std::atomic<int>> acked(conns.size());
  std::atomic<bool> stopped{false};
  IngestRun run;
  double t0 = now_s();
  std::vector<std::thread> senders;
  for (size_t c = 0; c < conns.size(); ++c) {
    senders.emplace_back([&, c] {
      int sent = 0;
      for (auto& f : frames[c]) {
        // Sleeps until OKs arrive (a futex, not a poll: polling every 50 µs
        // cost the client more CPU than the relay spent outside its verify).
        for (int seen = acked[c].load(); sent - seen >= window && !stopped.load(); seen = acked[c].load()) {
          acked[c].wait(seen);
        }
        if (stopped.load() || !conns[c]->send_text(f)) return;
        ++sent;
      }
    });
  }
  ReadySet ready(conns);
  size_t lost = SIZE_MAX;  // a connection the server closed
  while (run.oks < events && lost == SIZE_MAX) {
    bool any = ready.wait(10000, [&](size_t i) {
      int oks = 0;
      while (auto m = conns[i]->recv(0)) {
        if (m->rfind("[\"NOTICE\"", 0) == 0) ++run.notices;  // an EVENT dropped for a full writer queue: no OK comes
        if (m->rfind("[\"OK\"", 0) != 0) continue;
        ++oks;
        run.accepted += m->find("\",true,") != std::string::npos;
      }
      if (oks > 0) {
        run.oks += size_t(oks);
        acked[i].fetch_add(oks);
        acked[i].notify_one();
      }
      if (conns[i]->closed()) lost = i;
    });
    if (!any) break;
  }
  run.elapsed_s = now_s() - t0;
  stopped = true;
  for (auto& a : acked) {
    a.fetch_add(1);  // wakes a sender still waiting for room
    a.notify_all();
  }
  for (auto& t : senders) t.join();
  if (lost != SIZE_MAX) {
    throw std::runtime_error("connection " + std::to_string(lost) + " was closed by the server after " + std::to_string(run.oks) +
                             " OKs of " + std::to_string(events));
  }
  return run;
}

// The same frames, window and client against the ingest floor
// (tools/load/ingest_floor.h), started as a child process of this binary:
// its whole CPU per stored event, as the relay's is counted.
// Adds floor_cpu_pct_<thread role> to figures.
double ingest_floor_us(const std::vector<std::vector<std::string>>& frames, int window, size_t events,
                       std::map<std::string, double>* figures) {
  const std::string dir = temp_dir();  // the relay's, removed when it stopped
  const uint16_t port = uint16_t(pick_port() + 1);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe");
  const pid_t pid = load::spawn_process({self, "ingest-floor-serve", "--port", std::to_string(port), "--dir", dir}, {}, 1);
  std::vector<std::unique_ptr<client::WsClient>> conns;
  std::string err;
  for (int attempt = 0; conns.size() < frames.size() && attempt < 200; ++attempt) {
    if (auto c = client::WsClient::connect("127.0.0.1", port, &err, "/", 10000)) {
      conns.push_back(std::move(c));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));  // still opening its database
    }
  }
  double per_event = 0;
  if (conns.size() == frames.size()) {
    auto before = load::read_usage(pid);
    IngestRun run = drive_ingest(conns, frames, window, events);
    auto after = load::read_usage(pid);
    if (run.accepted != events) throw std::runtime_error("ingest floor: " + std::to_string(run.accepted) + " of " + std::to_string(events) + " stored");
    const double total = after.cpu_seconds - before.cpu_seconds;
    per_event = total * 1e6 / double(events);
    (*figures)["floor_events_per_s"] = double(events) / run.elapsed_s;
    for (const auto& [role, cpu] : after.cpu_by_thread) {
      const auto was = before.cpu_by_thread.find(role);
      const double used = cpu - (was == before.cpu_by_thread.end() ? 0 : was->second);
      if (total > 0 && used > 0) (*figures)["floor_cpu_pct_" + role] = 100 * used / total;
    }
  }
  conns.clear();
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::filesystem::remove_all(dir);
  if (per_event == 0) throw std::runtime_error("ingest floor: cannot connect: " + err);
  return per_event;
}

void ingest(const Options& o) {
  const double verify_first = verify_us();
  std::vector<engine::Keypair> keys;
  for (int i = 0; i < o.connections; ++i) keys.push_back(engine::generate_keypair());
  // Sign everything first: the measured window holds only the relay's work.
  std::vector<std::vector<std::string>> frames(size_t(o.connections));
  for (int i = 0; i < o.events; ++i) {
    size_t c = size_t(i % o.connections);
    frames[c].push_back("[\"EVENT\"," + note(keys[c], "ingest " + std::to_string(i), {{"t", "load"}}).raw + "]");
  }
  std::map<std::string, double> figures;
  load::ProcessUsage before, after;
  {
    std::string dir = temp_dir();
    load::ServerProcess server(o.binary, dir, pick_port());
    std::vector<std::unique_ptr<client::WsClient>> conns;
    for (int i = 0; i < o.connections; ++i) conns.push_back(connect_authed(server, keys[size_t(i)]));
    BatchCounters batches_before = scrape_batches(server);
    before = load::read_usage(server.pid());
    const double client_before = load::read_usage(getpid()).cpu_seconds;
    IngestRun run = drive_ingest(conns, frames, o.in_flight, size_t(o.events));
    const double client_cpu_s = load::read_usage(getpid()).cpu_seconds - client_before;
    const double search_caught_up_s = wait_until_searchable(server);
    after = load::read_usage(server.pid());
    BatchCounters batches_after = scrape_batches(server);
    double cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6;
    double batches = std::max(1.0, batches_after.batches - batches_before.batches);
    // Refused: answered OK false, or dropped with a NOTICE (and the 10 s wait for it is in elapsed_s).
    figures = {{"events_ok", double(run.oks)}, {"events_accepted", double(run.accepted)},
               {"events_refused", double(run.oks - run.accepted + run.notices)}, {"elapsed_s", run.elapsed_s},
               {"events_per_store_batch", (batches_after.jobs - batches_before.jobs) / batches},
               {"search_overflowed", batches_after.search_overflowed - batches_before.search_overflowed},
               {"search_caught_up_s", search_caught_up_s},
               {"client_cpu_us_per_event", client_cpu_s * 1e6 / double(std::max<size_t>(1, run.oks))},
               {"events_per_s", double(run.oks) / run.elapsed_s},
               {"server_cpu_us_per_event", cpu_us / double(std::max<size_t>(1, run.accepted))}};
  }
  // The floor runs after the relay has stopped, on the same frames (its own empty database).
  const double floor = o.floor ? ingest_floor_us(frames, o.in_flight, size_t(o.events), &figures) : 0;
  // Measured before and after: this VM's speed moves within minutes, and the
  // faster of the two makes the stricter ratio.
  const double verify_last = verify_us();
  const double v = std::min(verify_first, verify_last);
  figures["bare_verify_us"] = v;
  figures["bare_verify_us_first"] = verify_first;
  figures["bare_verify_us_last"] = verify_last;
  figures["ratio_to_verify"] = figures["server_cpu_us_per_event"] / v;
  if (o.floor) {
    figures["floor_cpu_us_per_event"] = floor;
    figures["floor_ratio_to_verify"] = floor / v;
    figures["ratio_to_floor"] = figures["server_cpu_us_per_event"] / floor;
  }
  report(o, figures, before, after);
}

void fanout(const Options& o) {
  std::string dir = temp_dir();
  // With --pubsub, two nodes share the Redis (the child servers read REDIS_URL):
  // the subscribers are on one, the publisher on the other, so every delivery
  // crossed Redis. The figures are the subscribers' node's.
  if (!o.pubsub.empty()) setenv("REDIS_URL", o.pubsub.c_str(), 1);
  load::ServerProcess server(o.binary, dir, pick_port());
  std::unique_ptr<load::ServerProcess> other;
  if (!o.pubsub.empty()) {
    std::filesystem::create_directories(dir + "-publisher");
    other = std::make_unique<load::ServerProcess>(o.binary, dir + "-publisher", uint16_t(pick_port() + 1));
  }
  const load::ServerProcess& publishing = other ? *other : server;
  std::vector<std::unique_ptr<client::WsClient>> subs;
  for (int i = 0; i < o.subscribers; ++i) {
    auto c = connect_authed(server, engine::generate_keypair());
    c->send_text(R"(["REQ","live",{"kinds":[1],"#t":["fanout"],"limit":0}])");
    auto eose = c->recv(5000);
    if (!eose || eose->find("EOSE") == std::string::npos) throw std::runtime_error("subscribe failed");
    subs.push_back(std::move(c));
  }
  engine::Keypair pub_key = engine::generate_keypair();
  auto publisher = connect_authed(publishing, pub_key);
  int total = o.rate * o.seconds;
  std::vector<std::string> frames;
  for (int i = 0; i < total; ++i) frames.push_back("[\"EVENT\"," + note(pub_key, std::to_string(i), {{"t", "fanout"}}).raw + "]");

  std::vector<std::atomic<double>> sent_at(static_cast<size_t>(total));
  auto before = load::read_usage(server.pid());
  auto before_publishing = load::read_usage(publishing.pid());
  std::thread pub([&] {
    double start = now_s();
    for (int i = 0; i < total; ++i) {
      double due = start + double(i) / o.rate;
      sleep_until_s(due);
      sent_at[size_t(i)].store(now_s(), std::memory_order_relaxed);
      publisher->send_text(frames[size_t(i)]);
    }
  });
  size_t expected = size_t(total) * subs.size();
  const load::Deliveries delivered = read_deliveries(subs, sent_at, expected, now_s() + o.seconds + 10);
  const std::vector<double>& latencies = delivered.latencies;
  pub.join();
  auto after = load::read_usage(server.pid());
  auto after_publishing = load::read_usage(publishing.pid());
  size_t got = latencies.size();
  double cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6;
  const double per_delivery = cpu_us / double(std::max<size_t>(1, got));
  // The floor over as many connections as there are subscribers, with the
  // relay idle but still holding them: what one delivery costs the kernel.
  const double floor = load::loopback_send_floor_us(o.subscribers);
  // And the latency floor: verify, fdatasync, a send to each subscriber (load/fanout_floor.h).
  const load::FanoutFloorOptions floor_options{.connections = o.subscribers, .rate = o.rate, .seconds = o.seconds, .dir = dir};
  const load::Deliveries floor_run = load::fanout_latency_floor(floor_options, note(pub_key, "floor", {{"t", "fanout"}}));
  const std::vector<double>& floor_latencies = floor_run.latencies;
  auto per_delivery_us = [](double cpu_s, size_t n) { return cpu_s * 1e6 / double(std::max<size_t>(1, n)); };
  std::map<std::string, double> figures = {
      {"deliveries_expected", double(expected)}, {"deliveries_received", double(got)},
      {"lost", double(expected - got)}, {"p50_ms", percentile_ms(latencies, 0.5)},
      {"p99_ms", percentile_ms(latencies, 0.99)}, {"floor_p50_ms", percentile_ms(floor_latencies, 0.5)},
      {"floor_p99_ms", percentile_ms(floor_latencies, 0.99)},
      {"floor_lost", double(expected - floor_latencies.size())},
      {"server_cpu_us_per_delivery", per_delivery}, {"send_floor_us", floor},
      {"ratio_to_send_floor", per_delivery / floor},
      {"reader_cpu_us_per_delivery", per_delivery_us(delivered.reader_cpu_s, got)},
      {"floor_reader_cpu_us_per_delivery", per_delivery_us(floor_run.reader_cpu_s, floor_latencies.size())},
      {"bare_verify_us", verify_us()}};
  if (other) {
    figures["publishing_node_cpu_us_per_event"] =
        (after_publishing.cpu_seconds - before_publishing.cpu_seconds) * 1e6 / std::max(1, total);
  }
  report(o, figures, before, after);
  if (figures["lost"] != 0 || figures["floor_lost"] != 0) throw std::runtime_error("a live delivery was lost");
}

// Team traffic: private channels, each member subscribed to its own channels
// (one REQ per channel, as clients do), messages posted at a fixed total rate.
void channels(const Options& o) {
  std::string dir = temp_dir();
  load::ServerProcess server(o.binary, dir, pick_port());
  engine::Keypair owner = engine::generate_keypair();
  auto admin = connect_authed(server, owner);
  std::vector<std::string> ids;
  std::vector<std::string> setup;
  for (int i = 0; i < o.channels; ++i) {
    ids.push_back(load::channel_uuid(i));
    setup.push_back("[\"EVENT\"," + note(owner, "", {{"h", ids.back()}, {"name", "load " + std::to_string(i)}, {"visibility", "private"}}, 9007).raw + "]");
  }
  std::vector<engine::Keypair> members;
  std::vector<std::vector<int>> member_channels(size_t(o.members));
  for (int m = 0; m < o.members; ++m) {
    members.push_back(engine::generate_keypair());
    for (int k = 0; k < o.per_member; ++k) {
      int ch = (m + k * (o.channels / std::max(1, o.per_member) + 1)) % o.channels;
      member_channels[size_t(m)].push_back(ch);
      setup.push_back("[\"EVENT\"," + note(owner, "", {{"h", ids[size_t(ch)]}, {"p", engine::to_hex(members.back().pubkey)}}, 9000).raw + "]");
    }
  }
  send_all(*admin, setup);

  std::vector<std::unique_ptr<client::WsClient>> subs;
  size_t deliveries_per_channel_total = 0;
  std::vector<size_t> channel_members(size_t(o.channels), 0);
  for (int m = 0; m < o.members; ++m) {
    auto c = connect_authed(server, members[size_t(m)]);
    for (int ch : member_channels[size_t(m)]) {
      channel_members[size_t(ch)]++;
      c->send_text("[\"REQ\",\"c" + std::to_string(ch) + "\",{\"kinds\":[9],\"#h\":[\"" + ids[size_t(ch)] + "\"],\"limit\":0}]");
      auto eose = c->recv(5000);
      if (!eose || eose->find("EOSE") == std::string::npos) throw std::runtime_error("subscribe failed: " + eose.value_or("timeout"));
    }
    subs.push_back(std::move(c));
  }
  int total = o.rate * o.seconds;
  std::vector<std::string> frames;
  for (int i = 0; i < total; ++i) {
    size_t ch = size_t(i % o.channels);
    deliveries_per_channel_total += channel_members[ch];
    frames.push_back("[\"EVENT\"," + note(owner, std::to_string(i), {{"h", ids[ch]}}, 9).raw + "]");
  }
  constexpr int kPublishers = 8;
  std::vector<std::unique_ptr<client::WsClient>> pubs;
  for (int p = 0; p < kPublishers; ++p) pubs.push_back(connect_authed(server, owner));

  std::vector<std::atomic<double>> sent_at(static_cast<size_t>(total));
  auto before = load::read_usage(server.pid());
  std::vector<std::thread> publishers;
  for (int p = 0; p < kPublishers; ++p) {
    publishers.emplace_back([&, p] {
      double start = now_s();
      for (int i = p; i < total; i += kPublishers) {
        double due = start + double(i) / o.rate;
        sleep_until_s(due);
        sent_at[size_t(i)].store(now_s(), std::memory_order_relaxed);
        pubs[size_t(p)]->send_text(frames[size_t(i)]);
        while (pubs[size_t(p)]->recv(0)) {}  // drain the OKs
      }
    });
  }
  const load::Deliveries delivered = read_deliveries(subs, sent_at, deliveries_per_channel_total, now_s() + o.seconds + 10);
  const std::vector<double>& latencies = delivered.latencies;
  size_t got = latencies.size();
  for (auto& t : publishers) t.join();
  auto after = load::read_usage(server.pid());
  double cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6;
  report(o, {{"channels", double(o.channels)}, {"members", double(o.members)}, {"events", double(total)},
             {"deliveries_expected", double(deliveries_per_channel_total)}, {"deliveries_received", double(got)},
             {"lost", double(deliveries_per_channel_total - got)}, {"p50_ms", percentile_ms(latencies, 0.5)},
             {"p99_ms", percentile_ms(latencies, 0.99)},
             {"server_cpu_us_per_delivery", cpu_us / double(std::max<size_t>(1, got))},
             {"server_cpu_us_per_event", cpu_us / double(std::max(1, total))},
             {"reader_cpu_us_per_delivery", delivered.reader_cpu_s * 1e6 / double(std::max<size_t>(1, got))},
             {"bare_verify_us", verify_us()}},
         before, after);
}

// --connections clients, each on its own thread, asking one query after another
// for --seconds: by kind, by author and by tag in turn, each naming a different
// author or tag than the last, with the same limit of 500 as the latency shapes.
void mixed_history(const Options& o, const load::ServerProcess& server, const std::vector<engine::Keypair>& authors,
                   std::map<std::string, double>& figures) {
  std::vector<std::unique_ptr<client::WsClient>> conns;
  for (int i = 0; i < o.connections; ++i) conns.push_back(connect_authed(server, engine::generate_keypair()));
  std::atomic<uint64_t> queries{0}, results{0};
  auto before = load::read_usage(server.pid());
  const double t0 = now_s(), deadline = t0 + o.seconds;
  std::vector<std::thread> threads;
  for (size_t t = 0; t < conns.size(); ++t) {
    threads.emplace_back([&, t] {
      for (size_t q = t; now_s() < deadline; q += conns.size()) {
        std::string filter;
        switch (q % 3) {
          case 0: filter = R"({"kinds":[1],"limit":500})"; break;
          case 1: filter = "{\"kinds\":[1],\"authors\":[\"" + engine::to_hex(authors[q % authors.size()].pubkey) + "\"],\"limit\":500}"; break;
          default: filter = "{\"kinds\":[1],\"#t\":[\"tag" + std::to_string(q % 200) + "\"],\"limit\":500}"; break;
        }
        results.fetch_add(query(*conns[t], filter), std::memory_order_relaxed);
        queries.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& t : threads) t.join();
  const double elapsed = now_s() - t0;
  auto after = load::read_usage(server.pid());
  figures["mixed_connections"] = double(conns.size());
  figures["mixed_queries_per_s"] = double(queries.load()) / elapsed;
  figures["mixed_results_per_query"] = double(results.load()) / double(std::max<uint64_t>(1, queries.load()));
  const double cpu = after.cpu_seconds - before.cpu_seconds;
  figures["mixed_server_cpu_us_per_query"] = cpu * 1e6 / double(std::max<uint64_t>(1, queries.load()));
  for (const auto& [role, used] : after.cpu_by_thread) {
    const auto was = before.cpu_by_thread.find(role);
    const double share = used - (was == before.cpu_by_thread.end() ? 0 : was->second);
    if (cpu > 0 && share > 0) figures["mixed_cpu_pct_" + role] = 100 * share / cpu;
  }
}

void history(const Options& o) {
  std::string dir = temp_dir();
  std::vector<engine::Keypair> authors;
  for (int i = 0; i < 100; ++i) authors.push_back(engine::generate_keypair());
  {
    // Preload straight into the store: the read path does not re-verify, so
    // signing a million events would only slow the setup down.
    std::filesystem::create_directories(dir);
    auto db = engine::RocksDatabase::open(dir + "/db", engine::DatabaseOptions{});
    if (!db) throw std::runtime_error(db.error());
    engine::RocksEventStore store(**db);
    uint64_t base = engine::unix_now() - uint64_t(o.events);
    std::vector<engine::Event> batch;
    for (int i = 0; i < o.events; ++i) {
      engine::Event e;
      e.kind = uint16_t(i % 4 == 0 ? 7 : 1);
      e.created_at = base + uint64_t(i);
      e.pubkey = authors[size_t(i % 100)].pubkey;
      e.tags = {{"t", "tag" + std::to_string(i % 200)}};
      e.content = "history event " + std::to_string(i);
      e.id = engine::compute_id(e);
      e.raw = engine::serialize_event(e);
      batch.push_back(std::move(e));
      if (batch.size() == 1000 || i + 1 == o.events) {
        std::vector<engine::WriteRequest> reqs;
        for (auto& b : batch) reqs.push_back({&b, {}});
        (void)store.write(reqs);
        batch.clear();
        if (!o.json && (i + 1) % 100000 == 0) std::fprintf(stderr, "\rpreloaded %d / %d", i + 1, o.events);
      }
    }
    if (!o.json) std::fprintf(stderr, "\n");
  }
  // With BUZZ_STORE=postgres://… the relay serves that database: the preload goes there first.
  if (const char* store = std::getenv("BUZZ_STORE"); store != nullptr && *store != '\0') {
    const std::string cmd = o.binary + " migrate export --data-dir " + dir + " --to '" + store + "' > /dev/null";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("preloading the store failed: " + cmd);
  }
  load::ServerProcess server(o.binary, dir, pick_port());
  auto c = connect_authed(server, engine::generate_keypair());
  std::map<std::string, double> figures;
  // Global queries name their kinds: without them the p-gate refuses the REQ
  // (protocol.md §9.3), as it would for any client.
  const std::pair<const char*, std::string> shapes[] = {
      {"kind", R"({"kinds":[1],"limit":500})"},
      {"author", "{\"kinds\":[1],\"authors\":[\"" + engine::to_hex(authors[7].pubkey) + "\"],\"limit\":500}"},
      {"tag", R"({"kinds":[1],"#t":["tag42"],"limit":500})"},
  };
  for (const auto& [name, filter] : shapes) {
    std::vector<double> lat;
    size_t results = 0;
    for (int q = 0; q < o.queries; ++q) {
      double t0 = now_s(), eose_at = 0;
      results = query(*c, filter, &eose_at);
      lat.push_back((eose_at - t0) * 1e3);
    }
    std::sort(lat.begin(), lat.end());
    figures[std::string(name) + "_results"] = double(results);
    figures[std::string(name) + "_p50_ms"] = lat[lat.size() / 2];
    figures[std::string(name) + "_p99_ms"] = lat[size_t(0.99 * double(lat.size() - 1))];
  }
  figures["stored_events"] = o.events;
  mixed_history(o, server, authors, figures);
  report(o, figures);
}

// REST reads: one open channel holding --events messages (every tenth with a
// reply, every fifth with a reaction), then --connections keep-alive clients on
// two threads reading its newest page (GET /api/channels/{id}/messages, 50
// messages with summaries and reactions) with a bearer token for --seconds.
void messages(const Options& o) {
  std::string dir = temp_dir();
  load::ServerProcess server(o.binary, dir, pick_port());
  engine::Keypair owner = engine::generate_keypair();
  auto ws = connect_authed(server, owner);
  const std::string channel = "b0000000-0000-4000-8000-000000000001";
  send_all(*ws, {"[\"EVENT\"," + note(owner, "", {{"h", channel}, {"name", "bench"}}, 9007).raw + "]"});
  // Stored kinds must be within 900 s of now: spread the history over 800 s.
  const uint64_t start = engine::unix_now() - 800;
  auto at = [&](int i) { return start + uint64_t(i) * 800 / uint64_t(o.events); };
  std::vector<std::string> posts, follow_ups;
  for (int i = 0; i < o.events; ++i) {
    engine::Event m = note(owner, "message " + std::to_string(i) + " about the quarterly plan", {{"h", channel}}, 9);
    m.created_at = at(i);
    engine::sign_event(owner, &m);
    posts.push_back("[\"EVENT\"," + m.raw + "]");
    if (i % 10 == 0) {
      engine::Event r = note(owner, "a reply", {{"h", channel}, {"e", m.id_hex(), "", "root"}}, 9);
      r.created_at = at(i) + 1;
      engine::sign_event(owner, &r);
      follow_ups.push_back("[\"EVENT\"," + r.raw + "]");
    }
    if (i % 5 == 0) follow_ups.push_back("[\"EVENT\"," + note(owner, "👍", {{"e", m.id_hex()}}, 7).raw + "]");
  }
  send_all(*ws, posts);
  send_all(*ws, follow_ups);

  const std::string bearer = load::mint_bearer(server, owner, "messages:read");
  load::HttpClient setup(server.port());
  const std::string target = "/api/channels/" + channel + "/messages";
  load::HttpAnswer page = setup.call("GET", target, {{"Authorization", bearer}});
  if (page.status != 200) throw std::runtime_error("messages failed: " + page.body);

  std::atomic<uint64_t> done{0}, failed{0};
  auto before = load::read_usage(server.pid());
  const double t0 = now_s(), deadline = t0 + o.seconds;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      std::vector<std::unique_ptr<load::HttpClient>> conns;
      for (int i = 0; i < std::max(1, o.connections / 2); ++i) conns.push_back(std::make_unique<load::HttpClient>(server.port()));
      while (now_s() < deadline) {
        for (auto& c : conns) c->send("GET", target, {{"Authorization", bearer}});
        for (auto& c : conns) (c->read().status == 200 ? done : failed).fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  const double elapsed = now_s() - t0;
  auto after = load::read_usage(server.pid());
  const double cpu = after.cpu_seconds - before.cpu_seconds;
  report(o, {{"stored_messages", double(o.events)},
             {"page_bytes", double(page.body.size())},
             {"requests", double(done.load())},
             {"failed", double(failed.load())},
             {"requests_per_second", double(done.load()) / elapsed},
             {"server_cpu_us_per_request", cpu * 1e6 / double(std::max<uint64_t>(1, done.load()))},
             {"server_cores_used", cpu / elapsed},
             {"verify_us", verify_us()}},
         before, after);
}

void crash(const Options& o) {
  const std::string dir = temp_dir();
  const int connections = std::min(o.connections, 8);
  auto figures = load::run_crash({o.binary, dir + "/data", o.cycles, connections, uint32_t(getpid())});
  std::filesystem::remove_all(dir);
  report(o, figures);
  if (figures["missing"] != 0 || figures["audit_verify_ok"] != 1) throw std::runtime_error("an acknowledged event was lost");
}

void soak(const Options& o) {
  std::string dir = temp_dir();
  load::ServerProcess server(o.binary, dir, pick_port());
  load::SoakRun run;
  run.minutes = o.minutes;
  run.connections = o.connections;
  run.rate = o.rate;
  run.csv = o.csv;
  run.progress = !o.json;
  auto usage_before = load::read_usage(server.pid());
  auto figures = load::run_soak(run, server);
  report(o, figures, usage_before, load::read_usage(server.pid()));
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

// The relay's memory per idle authenticated connection. The figure is the
// slope over the second half of the connections: the loops' provided receive
// buffers (a fixed pool, docs/limits.md) become resident as the first
// connections' handshakes cycle through them, which is no connection's own
// cost; the all-in average is printed beside it.
// Issue 16's two figures, each on a fresh relay: ingest CPU without and with
// 1,000 workflows evaluating every message, then trigger-to-effect latency.
void workflows(const Options& o) {
  load::WorkflowLoad w;
  w.messages = o.events;
  w.rate = o.rate;
  w.seconds = o.seconds;
  std::map<std::string, double> figures;
  auto measure = [&](auto&& run) {
    std::string dir = temp_dir();
    load::ServerProcess server(o.binary, dir, pick_port());
    return run(server);
  };
  const double plain = measure([&](auto& s) { return load::run_workflow_overhead(s, w, false); })["server_cpu_us_per_message"];
  const double watched = measure([&](auto& s) { return load::run_workflow_overhead(s, w, true); })["server_cpu_us_per_message"];
  figures["workflows"] = w.workflows;
  figures["messages"] = w.messages;
  figures["server_cpu_us_per_message_without"] = plain;
  figures["server_cpu_us_per_message_with"] = watched;
  figures["overhead_pct"] = 100 * (watched - plain) / plain;
  for (const auto& [k, v] : measure([&](auto& s) { return load::run_workflow_latency(s, w); })) figures["trigger_" + k] = v;
  report(o, figures);
  if (figures["trigger_lost"] != 0) throw std::runtime_error("a triggered workflow did not answer");
}

// Issue 18: `buzz send-message` end to end, a process per message.
void cli(const Options& o) {
  setenv("BUZZ_MINT_RATE_LIMIT", "1000000", 1);  // the key-only runs mint once each
  std::string dir = temp_dir();
  load::ServerProcess server(o.binary, dir, pick_port());
  report(o, load::run_cli_load(server, o.binary, o.events));
}

// Issue 18: `buzz acp`, mention → prompt in the agent's hands, 32 agents busy.
void acp(const Options& o, const char* self) {
  std::string dir = temp_dir();
  load::ServerProcess server(o.binary, dir, pick_port());
  load::AcpLoadOptions a;
  a.buzz_binary = o.binary;
  a.self_binary = self;
  a.agents = o.connections;
  a.rounds = o.events;
  report(o, load::run_acp_load(server, a));
}

void huddle(const Options& o) {
  std::string dir = temp_dir();
  load::ServerProcess server(o.binary, dir, pick_port());
  report(o, load::run_huddle_load(server, {o.rooms, o.speakers, o.rate, o.seconds}));
}

void idle(const Options& o) {
  std::string dir = temp_dir();
  load::ServerProcess server(o.binary, dir, pick_port());
  auto warm = connect_authed(server, engine::generate_keypair());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::vector<std::unique_ptr<client::WsClient>> conns;
  engine::Keypair key = engine::generate_keypair();
  auto open_until = [&](int n) {
    while (int(conns.size()) < n) {
      conns.push_back(connect_authed(server, key));
      if (!o.json && conns.size() % 1000 == 0) std::fprintf(stderr, "\ropened %zu / %d", conns.size(), o.connections);
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
    return load::read_usage(server.pid());
  };
  auto before = load::read_usage(server.pid());
  const int half = o.connections / 2;
  auto middle = open_until(half);
  auto after = open_until(o.connections);
  if (!o.json) std::fprintf(stderr, "\n");
  report(o, {{"connections", double(o.connections)}, {"rss_before_mib", double(before.rss_bytes) / 1048576},
             {"rss_after_mib", double(after.rss_bytes) / 1048576},
             {"rss_bytes_per_connection", double(after.rss_bytes - middle.rss_bytes) / (o.connections - half)},
             {"rss_bytes_per_connection_all_in", double(after.rss_bytes - before.rss_bytes) / o.connections}});
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc >= 2 && std::string(argv[1]) == "acp-agent") return load::run_acp_bench_agent(argc, argv);
  auto usage = [](FILE* to) {
    std::fputs("usage: buzz-load ingest|fanout|history|idle|channels|messages|crash|soak|workflows|cli|acp|huddle [--binary PATH] [--connections N]\n"
               "       [--events N] [--subscribers N] [--rate N] [--seconds N] [--queries N] [--channels N]\n"
               "       [--members N] [--per-member N] [--in-flight N] [--no-floor] [--cycles N] [--minutes N] [--csv FILE] [--pubsub URL] [--json]\n"
               "       [--rooms N] [--speakers N]\n"
               "Starts the relay (--binary, default ./build/buzz) on a fresh data directory, runs the scenario against it and\n"
               "prints its figures beside the floor measured in the same run (docs/performance.md has each command).\n", to);
  };
  if (argc < 2) return usage(stderr), 2;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") return usage(stdout), 0;
  }
  o.scenario = argv[1];
  if (o.scenario == "ingest-floor-serve" && argc == 6) return load::serve_ingest_floor(uint16_t(std::stoi(argv[3])), argv[5]);
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    // A count: a bad one is the caller's mistake, named, not an uncaught exception.
    auto number = [&] {
      const std::string v = next();
      int n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || end != v.data() + v.size()) {
        std::fprintf(stderr, "buzz-load: %s needs a whole number, not \"%s\"\n", a.c_str(), v.c_str());
        std::exit(2);
      }
      return n;
    };
    if (a == "--json") o.json = true;
    else if (a == "--binary") o.binary = next();
    else if (a == "--connections") o.connections = number();
    else if (a == "--events") o.events = number();
    else if (a == "--no-floor") o.floor = false;
    else if (a == "--in-flight") o.in_flight = std::max(1, number());
    else if (a == "--cycles") o.cycles = std::max(1, number());
    else if (a == "--minutes") o.minutes = std::max(1, number());
    else if (a == "--csv") o.csv = next();
    else if (a == "--pubsub") o.pubsub = next();
    else if (a == "--subscribers") o.subscribers = number();
    else if (a == "--rate") o.rate = number();
    else if (a == "--seconds") o.seconds = number();
    else if (a == "--queries") o.queries = number();
    else if (a == "--channels") o.channels = number();
    else if (a == "--members") o.members = number();
    else if (a == "--per-member") o.per_member = number();
    else if (a == "--rooms") o.rooms = std::max(1, number());
    else if (a == "--speakers") o.speakers = std::clamp(number(), 2, 25);
    else return std::fprintf(stderr, "buzz-load: unknown option %s (buzz-load --help lists them)\n", a.c_str()), 2;
  }
  if (o.connections <= 0) o.connections = o.scenario == "soak" ? 5000 : o.scenario == "history" ? 8 : o.scenario == "acp" ? 32 : 50;
  if (o.events <= 0) o.events = o.scenario == "cli" ? 200 : o.scenario == "acp" ? 20 : 20000;
  if (o.rate <= 0) o.rate = o.scenario == "soak" ? 500 : o.scenario == "workflows" ? 200 : 50;
  rlimit lim;
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
  try {
    if (o.scenario == "ingest") ingest(o);
    else if (o.scenario == "fanout") fanout(o);
    else if (o.scenario == "history") history(o);
    else if (o.scenario == "idle") idle(o);
    else if (o.scenario == "channels") channels(o);
    else if (o.scenario == "messages") messages(o);
    else if (o.scenario == "crash") crash(o);
    else if (o.scenario == "soak") soak(o);
    else if (o.scenario == "workflows") workflows(o);
    else if (o.scenario == "cli") cli(o);
    else if (o.scenario == "acp") acp(o, std::filesystem::read_symlink("/proc/self/exe").c_str());
    else if (o.scenario == "huddle") huddle(o);
    else return std::fprintf(stderr, "buzz-load: unknown scenario %s\n", o.scenario.c_str()), 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "buzz-load: %s\n", e.what());
    return 1;
  }
  return 0;
}
