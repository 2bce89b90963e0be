// Filter::matches, the check run per candidate subscription on every live event.
#include <benchmark/benchmark.h>

#include "bench/engine/bench_events.h"
#include "engine/filter.h"

namespace {

void BM_FilterMatch(benchmark::State& state) {
  auto events = buzz::bench::make_events(64);
  auto filter = buzz::engine::parse_filter_json(
      R"({"kinds":[1,7,9],"#t":["topic1","topic2","topic3"],"since":1600000000})");
  std::vector<buzz::engine::EventFields> fields(events.size());
  for (size_t i = 0; i < events.size(); ++i) fields[i].assign(events[i]);
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(filter->matches(fields[i++ % fields.size()]));
}
BENCHMARK(BM_FilterMatch);

}  // namespace
