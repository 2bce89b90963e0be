// Ingest CPU, piece by piece: parsing a client EVENT, computing the id, and the
// Schnorr verify that dominates it. BM_BareSchnorrVerify is the yardstick the
// performance targets are expressed in (docs/performance.md).
#include <benchmark/benchmark.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

#include "bench/engine/bench_events.h"
#include "engine/canonical.h"
#include "server/relay/client_message.h"

namespace {

using buzz::bench::make_events;

void BM_ParseClientEvent(benchmark::State& state) {
  auto events = make_events(64);
  std::vector<std::string> frames;
  for (auto& e : events) frames.push_back("[\"EVENT\"," + e.raw + "]");
  size_t i = 0;
  for (auto _ : state) {
    auto msg = buzz::server::parse_client_message(frames[i++ % frames.size()]);
    benchmark::DoNotOptimize(msg);
  }
  state.SetBytesProcessed(int64_t(state.iterations() * frames[0].size()));
}
BENCHMARK(BM_ParseClientEvent);

void BM_ComputeId(benchmark::State& state) {
  auto events = make_events(64);
  size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(buzz::engine::compute_id(events[i++ % events.size()]));
}
BENCHMARK(BM_ComputeId);

void BM_CheckEvent(benchmark::State& state) {  // id + signature, with the key cache warm
  auto events = make_events(64);
  size_t i = 0;
  std::string reason;
  for (auto _ : state) benchmark::DoNotOptimize(buzz::engine::check_event(events[i++ % events.size()], &reason));
}
BENCHMARK(BM_CheckEvent);

void BM_BareSchnorrVerify(benchmark::State& state) {  // libsecp256k1 alone, key already parsed
  auto events = make_events(1);
  const auto& e = events[0];
  secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  secp256k1_xonly_pubkey pk;
  if (!secp256k1_xonly_pubkey_parse(ctx, &pk, e.pubkey.data())) state.SkipWithError("bad key");
  for (auto _ : state) {
    benchmark::DoNotOptimize(secp256k1_schnorrsig_verify(ctx, e.sig.data(), e.id.data(), 32, &pk));
  }
  secp256k1_context_destroy(ctx);
}
BENCHMARK(BM_BareSchnorrVerify);

}  // namespace
