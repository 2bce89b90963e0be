// The RocksDB event store: batched inserts (as the store writer does them) and
// newest-first queries by kind, author and tag returning 500 events.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>

#include "bench/engine/bench_events.h"
#include "engine/canonical.h"
#include "engine/rocks_event_store.h"

namespace {

namespace fs = std::filesystem;
using namespace buzz::engine;

struct TempStore {
  fs::path dir = fs::temp_directory_path() / ("buzz-bench-" + std::to_string(::getpid()) + "-" + std::to_string(rand()));
  std::unique_ptr<RocksDatabase> db;
  std::unique_ptr<RocksEventStore> store;
  TempStore() {
    db = std::move(*RocksDatabase::open(dir.string(), DatabaseOptions{}));
    store = std::make_unique<RocksEventStore>(*db);
  }
  ~TempStore() {
    store.reset();
    db.reset();
    fs::remove_all(dir);
  }
  void insert(const std::vector<Event>& events, size_t batch) {
    for (size_t i = 0; i < events.size(); i += batch) {
      std::vector<WriteRequest> reqs;
      for (size_t j = i; j < std::min(events.size(), i + batch); ++j) reqs.push_back({&events[j], {}});
      (void)store->write(reqs);
    }
  }
  // Writes every memtable to a table file and waits for it.
  void flush() {
    std::vector<rocksdb::ColumnFamilyHandle*> all;
    for (size_t f = 0; f < size_t(Family::kCount); ++f) all.push_back(db->family(Family(f)));
    (void)db->db()->Flush(rocksdb::FlushOptions(), all);
  }
};

// Every stored event is flushed to a table file sooner or later, and part of a
// memtable's cost is paid there (a hash memtable sorts its keys at flush), so
// the timed work ends with the flush, and the CPU is the whole process's:
// RocksDB flushes on its own threads.
void BM_StoreInsert(benchmark::State& state) {
  const size_t batch = size_t(state.range(0));
  auto events = buzz::bench::make_events(20000);
  for (auto _ : state) {
    state.PauseTiming();
    TempStore t;
    state.ResumeTiming();
    t.insert(events, batch);
    t.flush();
  }
  state.SetItemsProcessed(int64_t(state.iterations() * events.size()));
}
BENCHMARK(BM_StoreInsert)->Arg(1)->Arg(64)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

// Args: filter (0 by kind, 1 by tag); where the events are (0 memtables, 1
// compacted table files read through the block cache, as in a long-running relay).
void BM_StoreQuery(benchmark::State& state) {
  static TempStore* stores[2] = {};
  TempStore*& t = stores[state.range(1)];
  if (!t) {
    t = new TempStore();
    t->insert(buzz::bench::make_events(100000), 256);
    if (state.range(1) == 1) {
      for (size_t f = 0; f < size_t(Family::kCount); ++f) {  // flushes the memtable first
        (void)t->db->db()->CompactRange(rocksdb::CompactRangeOptions(), t->db->family(Family(f)), nullptr, nullptr);
      }
    }
  }
  const char* filters[] = {R"({"kinds":[1],"limit":500})", R"({"#t":["topic7"],"limit":500})"};
  auto filter = parse_filter_json(filters[state.range(0)]);
  size_t n = 0;
  for (auto _ : state) {
    n = 0;
    (void)t->store->query(*filter, QueryOptions{}, [&](std::string_view, const EventFields&) { ++n; });
  }
  state.counters["results"] = double(n);
}
BENCHMARK(BM_StoreQuery)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);

// scan_all over n stored events, compacted: what a NIP-77 NEG-OPEN costs the
// relay before its first reply (the set of (created_at, id), 40 bytes each).
// The events are unsigned (the store does not verify), so a million build in
// seconds; one read-gate call per event, as the relay's readable_by.
void BM_StoreScanAll(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  static std::map<size_t, TempStore*> stores;
  TempStore*& t = stores[n];
  if (!t) {
    t = new TempStore();
    std::vector<Event> batch;
    for (size_t i = 0; i < n; ++i) {
      Event e;
      e.kind = 1;
      e.created_at = 1'700'000'000 + i / 4;
      const std::string seed = std::to_string(i);
      sha256(seed.data(), seed.size(), e.id.data());
      e.pubkey[0] = uint8_t(i % 16);
      e.raw = "{\"id\":\"" + to_hex(e.id) + "\"}";
      batch.push_back(std::move(e));
      if (batch.size() == 1000 || i + 1 == n) {
        t->insert(batch, 1000);
        batch.clear();
      }
    }
    for (size_t f = 0; f < size_t(Family::kCount); ++f) {
      (void)t->db->db()->CompactRange(rocksdb::CompactRangeOptions(), t->db->family(Family(f)), nullptr, nullptr);
    }
  }
  QueryOptions gate;
  gate.accept = [](const EventFields& f) { return f.channel.empty(); };
  size_t items = 0;
  for (auto _ : state) {
    items = 0;
    (void)t->store->scan_all(Filter{}, gate, 2'000'000, [&](const EventFields&) { ++items; });
  }
  state.counters["items"] = double(items);
}
BENCHMARK(BM_StoreScanAll)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
