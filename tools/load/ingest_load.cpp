// The ingest scenario and its floor run; see ingest_load.h.
#include "tools/load/ingest_load.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "tools/client/child_process.h"
#include "tools/load/load_client.h"
#include "tools/load/ready_set.h"

namespace buzz::load {
namespace {

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
  std::string error;
  const pid_t pid = client::start_child(
      {.args = {self, "ingest-floor-serve", "--port", std::to_string(port), "--dir", dir}, .drop_prefix = "BUZZ_", .stdout_path = "/dev/null"},
      &error);
  if (pid < 0) throw std::runtime_error(error);
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
    auto before = read_usage(pid);
    IngestRun run = drive_ingest(conns, frames, window, events);
    auto after = read_usage(pid);
    if (run.accepted != events) throw std::runtime_error("ingest floor: " + std::to_string(run.accepted) + " of " + std::to_string(events) + " stored");
    per_event = (after.cpu_seconds - before.cpu_seconds) * 1e6 / double(events);
    (*figures)["floor_events_per_s"] = double(events) / run.elapsed_s;
    add_cpu_shares(before, after, "floor_cpu_pct_", figures);
  }
  conns.clear();
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::filesystem::remove_all(dir);
  if (per_event == 0) throw std::runtime_error("ingest floor: cannot connect: " + err);
  return per_event;
}

}  // namespace

void run_ingest(const Options& o) {
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
  ProcessUsage before, after;
  {
    ServerProcess server = start_relay(o);
    std::vector<std::unique_ptr<client::WsClient>> conns;
    for (int i = 0; i < o.connections; ++i) conns.push_back(connect_authed(server, keys[size_t(i)]));
    BatchCounters batches_before = scrape_batches(server);
    before = read_usage(server.pid());
    const double client_before = read_usage(getpid()).cpu_seconds;
    IngestRun run = drive_ingest(conns, frames, o.in_flight, size_t(o.events));
    const double client_cpu_s = read_usage(getpid()).cpu_seconds - client_before;
    const double search_caught_up_s = wait_until_searchable(server);
    after = read_usage(server.pid());
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
  const double floor = o.floor && !o.tls ? ingest_floor_us(frames, o.in_flight, size_t(o.events), &figures) : 0;
  // Measured before and after: this VM's speed moves within minutes, and the
  // faster of the two makes the stricter ratio.
  const double verify_last = verify_us();
  const double v = std::min(verify_first, verify_last);
  figures["bare_verify_us"] = v;
  figures["bare_verify_us_first"] = verify_first;
  figures["bare_verify_us_last"] = verify_last;
  figures["ratio_to_verify"] = figures["server_cpu_us_per_event"] / v;
  if (o.floor && !o.tls) {
    figures["floor_cpu_us_per_event"] = floor;
    figures["floor_ratio_to_verify"] = floor / v;
    figures["ratio_to_floor"] = figures["server_cpu_us_per_event"] / floor;
  }
  report(o, figures, before, after);
}

}  // namespace buzz::load
