// Negentropy protocol v1 (engine/negentropy.h): a whole reconciliation of two
// in-memory sets of n items differing by p %, half each way, as the relay and
// `buzz sync` run it (30,000-byte frames), with our split policy (policy 0) and
// the reference implementation's (policy 1: 16 buckets, ranges under 32 items
// listed). Counters: rounds and binary bytes each way (NIP-77 puts them on the
// wire as hex, twice that), and the floor: the ids the client lacks, which must
// come down whole (32 bytes each), whatever finds them.
#include <benchmark/benchmark.h>

#include <map>
#include <random>

#include "engine/negentropy.h"

namespace {

using namespace buzz::engine::negentropy;

struct Sets {
  ItemSet client, server;
};

Sets make_sets(size_t n, int percent) {
  std::mt19937_64 rng(42);
  std::vector<Item> c, s;
  c.reserve(n);
  s.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Item it;
    it.created_at = 1'700'000'000 + i / 4;  // a few events a second
    for (auto& b : it.id) b = uint8_t(rng());
    const bool differs = int(rng() % 1000) < percent * 10;
    if (!differs || i % 2 == 0) c.push_back(it);
    if (!differs || i % 2 == 1) s.push_back(it);
  }
  return {ItemSet(std::move(c)), ItemSet(std::move(s))};
}

void BM_NegentropyReconcile(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  const int percent = int(state.range(1));
  SplitPolicy policy;
  if (state.range(2) == 1) {
    policy.wide_above = 0;
    policy.initiator_list_at_most = policy.responder_list_at_most = 31;
  }
  static std::map<std::pair<size_t, int>, Sets> cache;  // built once, outside the timing
  auto it = cache.find({n, percent});
  if (it == cache.end()) it = cache.emplace(std::pair{n, percent}, make_sets(n, percent)).first;
  const Sets& sets = it->second;
  size_t up = 0, down = 0, rounds = 0, found = 0, needed = 0;
  for (auto _ : state) {
    up = down = rounds = found = needed = 0;
    Reconciler client(sets.client, 30'000, policy), server(sets.server, 30'000, policy);
    std::string msg = client.initiate();
    while (!msg.empty()) {
      up += msg.size();
      auto reply = server.reconcile(msg);
      down += reply->next.size();
      auto out = client.reconcile(reply->next);
      found += out->have.size() + out->need.size();
      needed += out->need.size();
      msg = std::move(out->next);
      ++rounds;
    }
  }
  state.counters["rounds"] = double(rounds);
  state.counters["bytes_up"] = double(up);
  state.counters["bytes_down"] = double(down);
  state.counters["differences"] = double(found);
  state.counters["floor_down"] = double(needed * 32);
}
BENCHMARK(BM_NegentropyReconcile)
    ->ArgsProduct({{10'000, 1'000'000}, {0, 1, 50}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
