// Shared fixtures for the engine benchmarks: realistic signed chat events.
#pragma once

#include <string>
#include <vector>

#include "engine/signature.h"

namespace buzz::bench {

// n signed kind-1 events from `authors` keys, one second apart, with a t tag and a p tag.
inline std::vector<engine::Event> make_events(size_t n, size_t authors = 16, uint64_t start = 1'700'000'000) {
  std::vector<engine::Keypair> keys;
  for (size_t i = 0; i < authors; ++i) keys.push_back(engine::generate_keypair());
  std::vector<engine::Event> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(engine::signed_event(
        keys[i % authors], 1, start + i,
        {{"t", "topic" + std::to_string(i % 50)}, {"p", engine::to_hex(keys[(i + 1) % authors].pubkey)}},
        "message number " + std::to_string(i) + " about the release plan and the next steps"));
  }
  return out;
}

}  // namespace buzz::bench
