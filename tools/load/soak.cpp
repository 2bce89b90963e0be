// The long mixed run of `buzz-load soak`; see soak.h.
#include "tools/load/soak.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "tools/client/http_client.h"
#include "tools/load/load_client.h"
#include "tools/load/ready_set.h"

namespace buzz::load {
namespace {

constexpr int kSoakPublishers = 8;
constexpr int kHistoryReaders = 8;
constexpr int kRestConnections = 4;
constexpr int kSubscriberThreads = 2;
constexpr double kWarmupShare = 0.2;  // the first fifth: caches, memtables and buffers fill
constexpr int kDrainSeconds = 10;     // after the last post, for the last deliveries

struct Tally {
  std::atomic<uint64_t> posted{0}, refused{0}, expected{0}, delivered{0}, queries{0}, rest_calls{0}, errors{0};
  std::atomic<bool> reading{true};
  std::mutex first_error_mutex;
  std::string first_error;  // what the first error was, for the report

  void error(const std::string& what) {
    if (errors.fetch_add(1) != 0) return;
    std::lock_guard lock(first_error_mutex);
    first_error = what;
  }
};

struct SoakSample {
  double second = 0;
  double rss_mib = 0;
  double cpu_pct = 0;
  double block_cache_mib = 0, memtables_mib = 0;  // the store's two bounded pools, from /metrics
  double allocated_mib = 0, held_mib = 0;          // malloc's live bytes and what it keeps resident
  double table_readers_mib = 0;                     // the store's open tables outside the block cache
  double rss_file_mib = 0;                          // of RSS, file and shared pages
  // What the target checks: RSS less the two pools, which fill up to their
  // configured bounds as the data grows (docs/performance.md, the soak).
  double beyond_pools() const { return rss_mib - block_cache_mib - memtables_mib; }
};

// A figure after the warm-up against where the warm-up left it, each point the
// median of kDriftWindow seconds: the pools are read at once, but RSS follows a
// memtable flush only as the allocator returns the freed arenas (jemalloc's
// decay, ~10 s), so for a few seconds after each flush RSS less the pools reads
// ~25 MiB high. The median skips that lag and a compaction's seconds; a trend
// (a leak) moves it. The first window after the warm-up, the last one, and the
// highest in between.
constexpr size_t kDriftWindow = 30;

struct Drift {
  double warm = 0, end = 0, max = 0;
  double growth_pct() const { return warm > 0 ? 100 * (max - warm) / warm : 0; }
};

Drift drift(const std::vector<SoakSample>& samples, double warmup_s, double (*of)(const SoakSample&)) {
  std::vector<double> after;
  for (const SoakSample& s : samples) {
    if (s.second >= warmup_s) after.push_back(of(s));
  }
  Drift d;
  for (size_t end = kDriftWindow; end <= after.size(); ++end) {
    std::vector<double> window(after.begin() + ptrdiff_t(end - kDriftWindow), after.begin() + ptrdiff_t(end));
    std::nth_element(window.begin(), window.begin() + kDriftWindow / 2, window.end());
    const double median = window[kDriftWindow / 2];
    if (end == kDriftWindow) d.warm = median;
    d.max = std::max(d.max, median);
    d.end = median;
  }
  return d;
}

// Each publisher posts its share of --rate into the channels in turn and counts
// every OK; a message's content is its global index, so a delivery names the
// moment it was sent.
void publish(int p, const SoakRun& run, double deadline, client::WsClient& conn, const engine::Keypair& owner,
             const std::vector<std::string>& channels, const std::vector<size_t>& followers,
             std::vector<std::atomic<double>>& sent_at, Tally& tally) {
  std::unordered_map<std::string, size_t> unanswered;  // event id -> channel
  auto settle = [&](const std::string& m) {
    if (m.rfind("[\"OK\",\"", 0) != 0) {
      tally.error("publisher: " + m);  // a NOTICE or anything else unasked for
      return;
    }
    auto it = unanswered.find(m.substr(7, 64));
    if (it == unanswered.end()) return;
    if (m.find("\",true,") != std::string::npos) {
      tally.expected.fetch_add(followers[it->second]);
    } else {
      tally.refused.fetch_add(1);
    }
    unanswered.erase(it);
  };
  const double start = now_s();
  for (size_t i = size_t(p); i < sent_at.size(); i += kSoakPublishers) {
    const double due = start + double(i) / run.rate;
    if (due > deadline) break;
    sleep_until_s(due);
    const size_t channel = i % channels.size();
    const engine::Event e = note(owner, std::to_string(i), {{"h", channels[channel]}}, 9);
    unanswered.emplace(e.id_hex(), channel);
    sent_at[i].store(now_s(), std::memory_order_relaxed);
    conn.send_text("[\"EVENT\"," + e.raw + "]");
    tally.posted.fetch_add(1);
    while (auto m = conn.recv(0)) settle(*m);
  }
  const double wait_until = now_s() + kDrainSeconds;
  while (!unanswered.empty() && now_s() < wait_until) {
    if (auto m = conn.recv(200)) settle(*m);
  }
  for (const auto& [id, channel] : unanswered) tally.error("publisher: no OK for " + id);
}

// Reads live deliveries on every subscriber in `mine`; returns their latencies in seconds.
std::vector<double> follow(const std::vector<std::unique_ptr<client::WsClient>>& subs, const std::vector<size_t>& mine,
                           const std::vector<std::atomic<double>>& sent_at, Tally& tally) {
  std::vector<double> latencies;
  std::vector<bool> dropped(subs.size(), false);
  ReadySet ready(subs, mine);
  while (tally.reading.load()) {
    ready.wait(200, [&](size_t i) {
      const double t = now_s();
      while (auto m = subs[i]->recv(0)) {
        const size_t at = m->find("\"content\":\"");
        if (m->rfind("[\"EVENT\"", 0) != 0 || at == std::string::npos) {
          tally.error("subscriber: " + *m);
          continue;
        }
        const size_t index = size_t(std::atoll(m->c_str() + at + 11));
        if (index < sent_at.size()) latencies.push_back(t - sent_at[index].load(std::memory_order_relaxed));
        tally.delivered.fetch_add(1, std::memory_order_relaxed);
      }
      if (subs[i]->closed() && !dropped[i]) {
        dropped[i] = true;
        tally.error("subscriber: connection closed, code " + std::to_string(subs[i]->close_code()));
      }
    });
  }
  return latencies;
}

// History over WebSocket, --queries-per-s over kHistoryReaders connections.
void read_history(const SoakRun& run, double deadline, std::vector<std::unique_ptr<client::WsClient>>& conns,
                  const std::vector<std::string>& channels, Tally& tally) {
  const double start = now_s();
  for (size_t q = 0;; ++q) {
    const double due = start + double(q) / run.queries_per_s;
    if (due > deadline) return;
    sleep_until_s(due);
    try {
      query(*conns[q % conns.size()], R"({"kinds":[9],"#h":[")" + channels[q % channels.size()] + R"("],"limit":50})");
      tally.queries.fetch_add(1);
    } catch (const std::exception& e) {
      tally.error(std::string("history: ") + e.what());
    }
  }
}

// Channel pages over REST with a bearer token, --rest-per-s over kRestConnections.
void read_rest(const SoakRun& run, double deadline, const ServerProcess& server, const std::string& bearer,
               const std::vector<std::string>& channels, Tally& tally) {
  std::vector<std::unique_ptr<client::HttpClient>> conns;
  for (int i = 0; i < kRestConnections; ++i) conns.push_back(std::make_unique<client::HttpClient>(server.port()));
  const double start = now_s();
  for (size_t q = 0;; ++q) {
    const double due = start + double(q) / run.rest_per_s;
    if (due > deadline) return;
    sleep_until_s(due);
    const client::HttpReply page = conns[q % conns.size()]->call(
        "GET", "/api/channels/" + channels[q % channels.size()] + "/messages", {{"Authorization", bearer}});
    if (page.status == 200) {
      tally.rest_calls.fetch_add(1);
    } else {
      tally.error("REST: status " + std::to_string(page.status) + " " + page.body);
    }
  }
}

}  // namespace

std::map<std::string, double> run_soak(const SoakRun& run, const ServerProcess& server) {
  const int subscribers = run.connections - kSoakPublishers - kHistoryReaders;
  if (subscribers < 1 || run.channels < 1 || run.rate < 1 || run.queries_per_s < 1 || run.rest_per_s < 1) {
    throw std::runtime_error("soak: --connections must exceed 16, and every rate be at least 1");
  }
  // The owner makes the open channels (anyone may read them) and posts into them.
  const engine::Keypair owner = engine::generate_keypair();
  std::vector<std::string> channels;
  std::vector<std::string> setup;
  for (int i = 0; i < run.channels; ++i) {
    channels.push_back(channel_uuid(i));
    setup.push_back(
        "[\"EVENT\"," +
        note(owner, "", {{"h", channels.back()}, {"name", "soak " + std::to_string(i)}}, kind::kCreateGroup).raw + "]");
  }
  send_all(*connect_authed(server, owner), setup);
  const std::string bearer = mint_bearer(server, owner, "messages:read");

  const bool tty = isatty(STDERR_FILENO);
  std::vector<std::unique_ptr<client::WsClient>> subs;
  std::vector<size_t> followers(channels.size(), 0);
  for (int i = 0; i < subscribers; ++i) {
    auto c = connect_authed(server, engine::generate_keypair());
    const size_t channel = size_t(i) % channels.size();
    c->send_text(R"(["REQ","live",{"kinds":[9],"#h":[")" + channels[channel] + R"("],"limit":0}])");
    auto eose = c->recv(10000);
    if (!eose || eose->rfind("[\"EOSE\"", 0) != 0) throw std::runtime_error("subscribe failed: " + eose.value_or("timeout"));
    ++followers[channel];
    subs.push_back(std::move(c));
    if (run.progress && (i + 1) % 1000 == 0) std::fprintf(stderr, "%sconnected %d / %d%s", tty ? "\r" : "", i + 1, subscribers, tty ? "" : "\n");
  }
  if (run.progress && tty) std::fprintf(stderr, "\n");
  std::vector<std::unique_ptr<client::WsClient>> publishers, readers;
  for (int i = 0; i < kSoakPublishers; ++i) publishers.push_back(connect_authed(server, owner));
  for (int i = 0; i < kHistoryReaders; ++i) readers.push_back(connect_authed(server, engine::generate_keypair()));

  const double seconds = run.minutes * 60.0;
  std::vector<std::atomic<double>> sent_at(size_t(seconds * run.rate) + 1);
  Tally tally;
  const ProcessUsage first = read_usage(server.pid());
  const double t0 = now_s(), deadline = t0 + seconds;
  std::vector<std::thread> workers;
  for (int p = 0; p < kSoakPublishers; ++p) {
    workers.emplace_back([&, p] { publish(p, run, deadline, *publishers[size_t(p)], owner, channels, followers, sent_at, tally); });
  }
  workers.emplace_back([&] { read_history(run, deadline, readers, channels, tally); });
  workers.emplace_back([&] { read_rest(run, deadline, server, bearer, channels, tally); });
  std::vector<std::vector<double>> latencies(kSubscriberThreads);
  std::vector<std::thread> subscriber_threads;
  for (int r = 0; r < kSubscriberThreads; ++r) {
    subscriber_threads.emplace_back([&, r] {
      std::vector<size_t> mine;
      for (size_t i = size_t(r); i < subs.size(); i += kSubscriberThreads) mine.push_back(i);
      latencies[size_t(r)] = follow(subs, mine, sent_at, tally);
    });
  }

  // Once a second: the relay's RSS and CPU, to the CSV and the progress line.
  std::vector<SoakSample> samples;
  std::ofstream csv;
  if (!run.csv.empty()) {
    csv.open(run.csv);
    csv << "second,rss_mib,cpu_pct,posted,delivered,errors,block_cache_mib,memtables_mib,allocated_mib,held_mib,"
           "table_readers_mib,rss_file_mib\n";
  }
  client::HttpClient metrics(server.port());
  ProcessUsage last = first;
  double last_t = t0;
  for (int s = 1; now_s() < deadline + kDrainSeconds; ++s) {
    sleep_until_s(t0 + s);
    const ProcessUsage now = read_usage(server.pid());
    const double t = now_s();
    const std::string page = metrics.call("GET", "/metrics").body;
    const SoakSample sample{t - t0,
                        double(now.rss_bytes) / 1048576,
                        100 * (now.cpu_seconds - last.cpu_seconds) / (t - last_t),
                        metric_value(page, "buzz_store_block_cache_bytes") / 1048576,
                        metric_value(page, "buzz_store_memtable_bytes") / 1048576,
                        metric_value(page, "buzz_allocator_allocated_bytes") / 1048576,
                        metric_value(page, "buzz_allocator_held_bytes") / 1048576,
                        metric_value(page, "buzz_store_table_readers_bytes") / 1048576,
                        double(now.rss_file_bytes) / 1048576};
    samples.push_back(sample);
    last = now;
    last_t = t;
    if (csv) {
      csv << int(sample.second + 0.5) << ',' << sample.rss_mib << ',' << sample.cpu_pct << ',' << tally.posted.load() << ','
          << tally.delivered.load() << ',' << tally.errors.load() << ',' << sample.block_cache_mib << ','
          << sample.memtables_mib << ',' << sample.allocated_mib << ',' << sample.held_mib << ','
          << sample.table_readers_mib << ',' << sample.rss_file_mib << '\n';
    }
    // One line rewritten in place on a terminal; a line every ten seconds into a log.
    if (run.progress && (tty || s % 10 == 0)) {
      std::fprintf(stderr, "%s%4.0f / %.0f s  rss %6.1f MiB  cpu %5.1f %%  posted %8llu  delivered %10llu  errors %llu%s",
                   tty ? "\r" : "", sample.second, seconds, sample.rss_mib, sample.cpu_pct,
                   (unsigned long long)tally.posted.load(), (unsigned long long)tally.delivered.load(),
                   (unsigned long long)tally.errors.load(), tty ? " " : "\n");
    }
    // Past the deadline, only the last deliveries are awaited.
    if (t > deadline && tally.delivered.load() >= tally.expected.load()) break;
  }
  if (run.progress && tty) std::fprintf(stderr, "\n");
  for (auto& w : workers) w.join();
  // Every OK is in, so `expected` is final: give the last deliveries a moment.
  for (const double until = now_s() + kDrainSeconds; tally.delivered.load() < tally.expected.load() && now_s() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  tally.reading = false;
  for (auto& f : subscriber_threads) f.join();
  const ProcessUsage end = read_usage(server.pid());

  std::vector<double> all;
  for (auto& part : latencies) all.insert(all.end(), part.begin(), part.end());
  std::sort(all.begin(), all.end());
  // Only the samples of the run itself: the drain after it is idle.
  std::vector<SoakSample> during;
  for (const SoakSample& s : samples) {
    if (s.second <= seconds) during.push_back(s);
  }
  const double warmup_s = seconds * kWarmupShare;
  const Drift rss = drift(during, warmup_s, [](const SoakSample& s) { return s.rss_mib; });
  const Drift beyond = drift(during, warmup_s, [](const SoakSample& s) { return s.beyond_pools(); });
  // Split of what is beyond the pools: live heap outside them, and what malloc keeps besides.
  const Drift heap = drift(during, warmup_s, [](const SoakSample& s) { return s.allocated_mib - s.block_cache_mib - s.memtables_mib; });
  const Drift kept = drift(during, warmup_s, [](const SoakSample& s) { return s.held_mib - s.allocated_mib; });
  const SoakSample last_sample = samples.empty() ? SoakSample{} : samples.back();
  if (!tally.first_error.empty()) std::fprintf(stderr, "first error: %s\n", tally.first_error.c_str());
  const double expected = double(tally.expected.load()), delivered = double(tally.delivered.load());
  return {{"connections", double(run.connections)},
          {"posted", double(tally.posted.load())},
          {"refused", double(tally.refused.load())},
          {"deliveries_expected", expected},
          {"deliveries_received", delivered},
          {"lost", std::max(0.0, expected - delivered)},
          {"p50_ms", percentile_ms(all, 0.5)},
          {"p99_ms", percentile_ms(all, 0.99)},
          {"queries", double(tally.queries.load())},
          {"rest_calls", double(tally.rest_calls.load())},
          {"errors", double(tally.errors.load())},
          {"warmup_s", warmup_s},
          {"rss_warm_mib", rss.warm},
          {"rss_end_mib", rss.end},
          {"rss_max_mib", rss.max},
          {"rss_growth_pct", rss.growth_pct()},
          {"block_cache_end_mib", last_sample.block_cache_mib},
          {"memtables_end_mib", last_sample.memtables_mib},
          {"rss_beyond_store_pools_warm_mib", beyond.warm},
          {"rss_beyond_store_pools_end_mib", beyond.end},
          {"rss_beyond_store_pools_max_mib", beyond.max},
          {"rss_beyond_store_pools_growth_pct", beyond.growth_pct()},
          {"heap_beyond_store_pools_warm_mib", heap.warm},
          {"heap_beyond_store_pools_end_mib", heap.end},
          {"allocator_kept_warm_mib", kept.warm},
          {"allocator_kept_end_mib", kept.end},
          {"table_readers_end_mib", last_sample.table_readers_mib},
          {"rss_file_end_mib", last_sample.rss_file_mib},
          {"cpu_pct_mean", 100 * (end.cpu_seconds - first.cpu_seconds) / (now_s() - t0)}};
}

}  // namespace buzz::load
