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
    engine::Event e;
    e.kind = 1;
    e.created_at = start + i;
    e.tags = {{"t", "topic" + std::to_string(i % 50)}, {"p", engine::to_hex(keys[(i + 1) % authors].pubkey)}};
    e.content = "message number " + std::to_string(i) + " about the release plan and the next steps";
    engine::sign_event(keys[i % authors], &e);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace buzz::bench
