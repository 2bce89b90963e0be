// The history-query scenario; see history_load.h.
#include "tools/load/history_load.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/rocks_event_store.h"
#include "tools/load/load_client.h"

namespace buzz::load {
namespace {

// --connections clients, each on its own thread, asking one query after another
// for --seconds: by kind, by author and by tag in turn, each naming a different
// author or tag than the last, with the same limit of 500 as the latency shapes.
void mixed_history(const Options& o, const ServerProcess& server, const std::vector<engine::Keypair>& authors,
                   std::map<std::string, double>& figures) {
  std::vector<std::unique_ptr<client::WsClient>> conns;
  for (int i = 0; i < o.connections; ++i) conns.push_back(connect_authed(server, engine::generate_keypair()));
  std::atomic<uint64_t> queries{0}, results{0};
  auto before = read_usage(server.pid());
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
  auto after = read_usage(server.pid());
  figures["mixed_connections"] = double(conns.size());
  figures["mixed_queries_per_s"] = double(queries.load()) / elapsed;
  figures["mixed_results_per_query"] = double(results.load()) / double(std::max<uint64_t>(1, queries.load()));
  const double cpu = after.cpu_seconds - before.cpu_seconds;
  figures["mixed_server_cpu_us_per_query"] = cpu * 1e6 / double(std::max<uint64_t>(1, queries.load()));
  add_cpu_shares(before, after, "mixed_cpu_pct_", &figures);
}

}  // namespace

void run_history(const Options& o) {
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
    // Two topics cut across the others, as an outside load tool's did: one
    // eighth of the events, of ten kinds in turn, carry "spread" too (a tenth of
    // them kind 1); another eighth carry "old", kind 1 in the oldest 40 % of the
    // store and kind 7 after it. Asked by kind 1 and topic, the first must pass
    // over nine entries of other kinds for each match, the second over the
    // newer 60 % of its entries before its first match.
    static constexpr uint16_t kSpreadKinds[] = {1, 6, 7, 16, 1063, 1068, 1111, 1984, 9735, 9802};
    for (int i = 0; i < o.events; ++i) {
      engine::Event e;
      e.kind = uint16_t(i % 4 == 0 ? 7 : 1);
      e.created_at = base + uint64_t(i);
      e.pubkey = authors[size_t(i % 100)].pubkey;
      e.tags = {{"t", "tag" + std::to_string(i % 200)}};
      if (i % 8 == 5) {
        e.kind = kSpreadKinds[size_t(i / 8) % std::size(kSpreadKinds)];
        e.tags.push_back({"t", "spread"});
      } else if (i % 8 == 7) {
        e.kind = uint16_t(i < o.events / 10 * 4 ? 1 : 7);
        e.tags.push_back({"t", "old"});
      }
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
  ServerProcess server(o.binary, dir, pick_port());
  auto c = connect_authed(server, engine::generate_keypair());
  std::map<std::string, double> figures;
  // Global queries name their kinds: without them the p-gate refuses the REQ
  // (docs/reference/protocol.md §9.3), as it would for any client.
  const std::pair<const char*, std::string> shapes[] = {
      {"kind", R"({"kinds":[1],"limit":500})"},
      {"author", "{\"kinds\":[1],\"authors\":[\"" + engine::to_hex(authors[7].pubkey) + "\"],\"limit\":500}"},
      {"tag", R"({"kinds":[1],"#t":["tag42"],"limit":500})"},
      {"tag_spread", R"({"kinds":[1],"#t":["spread"],"limit":500})"},
      {"tag_old", R"({"kinds":[1],"#t":["old"],"limit":500})"},
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

}  // namespace buzz::load
