// The kernel's floor under live fan-out (tools/load/send_floor.h): one send()
// of a delivery-sized frame (400 bytes) to one of 256 loopback TCP connections
// in turn, while another thread drains them through epoll as a subscriber
// would. The benchmark thread's CPU per send is what a relay pays per delivery
// at the least, before any of its own work; `buzz-load fanout` measures the
// same over as many connections as it has subscribers.
#include <benchmark/benchmark.h>

#include "tools/load/send_floor.h"

namespace {

void BM_LoopbackSend(benchmark::State& state) {
  buzz::load::LoopbackFloor floor(256, 400);
  for (auto _ : state) {
    if (!floor.send_next()) state.SkipWithError("short send");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LoopbackSend);

}  // namespace
