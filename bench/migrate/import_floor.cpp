// buzz-migrate-import-floor: the floor for `buzz migrate import`'s figure
// (docs/performance.md), measured on the same events an import reads:
//   buzz-migrate-import-floor SRC_DIR SCRATCH_DIR [THREADS]
// Loads every stored event of SRC_DIR into memory (not timed), then times
//   verify: the id hash and Schnorr verify of each (check_event, as the import
//           runs it), split over THREADS threads (default 2: the machine's cores);
//   write:  the same events, oldest first with their channels, through the
//           store's write path in batches of 2000 into a fresh store in
//           SCRATCH_DIR (removed before and after).
// Nothing is read from PostgreSQL and nothing parsed: what is left of an import
// once its reading is free. Prints one JSON line. FLOOR_MEMTABLE_MB=N sets the
// write's memtable budget (DatabaseOptions), for trying other store settings.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "engine/event_parse.h"
#include "engine/event_record.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"

using namespace buzz::engine;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

struct Loaded {
  Event event;
  std::string channel;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return std::fputs("usage: buzz-migrate-import-floor SRC_DIR SCRATCH_DIR [THREADS]\n", stderr), 2;
  const std::string src = argv[1], scratch = argv[2];
  const unsigned threads = argc > 3 ? unsigned(std::atoi(argv[3])) : 2;
  std::vector<Loaded> events;
  {
    auto db = RocksDatabase::open(src + "/db", DatabaseOptions{});
    if (!db) return std::fprintf(stderr, "%s\n", db.error().c_str()), 1;
    RocksEventStore store(**db);
    Status s = store.scan_records(StorageFamily::kRegular, {}, [&](StorageFamily, const RecordView& rec) {
      auto e = parse_event_json(rec.raw);
      if (e) events.push_back({std::move(*e), std::string(rec.fields.channel)});
      return true;
    });
    if (!s) return std::fprintf(stderr, "%s\n", s.error().c_str()), 1;
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Loaded& a, const Loaded& b) { return a.event.created_at < b.event.created_at; });

  // Verify, THREADS ways.
  double cpu0 = process_cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  std::vector<size_t> bad(threads, 0);
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::string reason;
      for (size_t i = t; i < events.size(); i += threads) bad[t] += check_event(events[i].event, &reason) != EventCheck::kOk;
    });
  }
  for (std::thread& w : workers) w.join();
  const double verify_wall = seconds_since(t0), verify_cpu = process_cpu_seconds() - cpu0;
  size_t failures = 0;
  for (size_t b : bad) failures += b;

  // Write, one thread, as the store writer does.
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  std::filesystem::create_directories(scratch, ec);
  double write_wall = 0, write_cpu = 0;
  {
    DatabaseOptions options;
    if (const char* mb = std::getenv("FLOOR_MEMTABLE_MB")) options.memtable_budget_bytes = size_t(std::atoi(mb)) << 20;
    auto db = RocksDatabase::open(scratch + "/db", options);
    if (!db) return std::fprintf(stderr, "%s\n", db.error().c_str()), 1;
    RocksEventStore store(**db);
    cpu0 = process_cpu_seconds();
    t0 = std::chrono::steady_clock::now();
    std::vector<WriteRequest> batch;
    for (size_t i = 0; i < events.size(); ++i) {
      batch.push_back({&events[i].event, events[i].channel});
      if (batch.size() == 2000 || i + 1 == events.size()) {
        if (auto r = store.write(batch); !r) return std::fprintf(stderr, "%s\n", r.error().c_str()), 1;
        batch.clear();
      }
    }
    write_wall = seconds_since(t0);
    write_cpu = process_cpu_seconds() - cpu0;
  }
  std::filesystem::remove_all(scratch, ec);
  const double n = double(events.size());
  const double floor_s = verify_wall + write_wall;
  std::printf(
      "{\"events\":%zu,\"bad\":%zu,\"threads\":%u,\"verify_s\":%.3f,\"verify_cpu_us_per_event\":%.1f,"
      "\"write_s\":%.3f,\"write_cpu_us_per_event\":%.1f,\"floor_s\":%.3f,\"floor_events_per_s\":%.0f}\n",
      events.size(), failures, threads, verify_wall, verify_cpu / n * 1e6, write_wall, write_cpu / n * 1e6, floor_s,
      n / floor_s);
  return 0;
}
