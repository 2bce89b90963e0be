// buzz-sync-fill: two data directories whose events differ by a given share,
// for the `buzz sync` figure (docs/performance.md):
//   buzz-sync-fill CENTRAL_DIR EDGE_DIR N PERCENT
// N signed kind-1 notes by 200 authors over the last 30 days; PERCENT of them
// are in one directory only, half in each, the rest in both. Written straight
// into the stores (no relay, no ingest): the figure is the sync's, not the fill's.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/clock.h"
#include "engine/rocks_event_store.h"
#include "engine/signature.h"

using namespace buzz::engine;

int main(int argc, char** argv) {
  if (argc != 5) return std::fputs("usage: buzz-sync-fill CENTRAL_DIR EDGE_DIR N PERCENT\n", stderr), 2;
  const size_t n = std::strtoull(argv[3], nullptr, 10);
  const unsigned percent = unsigned(std::strtoul(argv[4], nullptr, 10));
  std::vector<std::unique_ptr<RocksDatabase>> dbs;
  std::vector<std::unique_ptr<RocksEventStore>> stores;
  for (const char* dir : {argv[1], argv[2]}) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    auto db = RocksDatabase::open(std::string(dir) + "/db", DatabaseOptions{});
    if (!db) return std::fprintf(stderr, "%s\n", db.error().c_str()), 1;
    dbs.push_back(std::move(*db));
    stores.push_back(std::make_unique<RocksEventStore>(*dbs.back()));
  }
  std::mt19937_64 rng(21);
  std::vector<Keypair> authors(200);
  for (auto& k : authors) k = generate_keypair();
  const uint64_t now = unix_now(), span = 30 * 86400;
  std::vector<Event> batch[2];
  size_t only[2] = {0, 0};
  auto flush = [&](size_t side) {
    std::vector<WriteRequest> reqs;
    for (const Event& e : batch[side]) reqs.push_back({&e, {}});
    if (auto r = stores[side]->write(reqs); !r) {
      std::fprintf(stderr, "%s\n", r.error().c_str());
      std::exit(1);
    }
    batch[side].clear();
  };
  for (size_t i = 0; i < n; ++i) {
    const Event e = signed_event(authors[rng() % authors.size()], 1, now - span + span * i / n, {},
                                 "note " + std::to_string(i) + " from the sync fill, about the length of a chat message");
    const bool differs = rng() % 1000 < percent * 10;
    const size_t side = rng() % 2;
    for (size_t s = 0; s < 2; ++s) {
      if (differs && s != side) continue;
      batch[s].push_back(e);
      if (batch[s].size() == 2000) flush(s);
    }
    if (differs) ++only[side];
  }
  flush(0);
  flush(1);
  std::printf("%zu events: %zu only in %s, %zu only in %s\n", n, only[0], argv[1], only[1], argv[2]);
  return 0;
}
