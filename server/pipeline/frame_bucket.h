// A human connection's frame bucket (docs/reference/protocol.md §14): units it may still
// spend, refilled at a steady rate up to its size. A replay's cost may take it below
// zero, to be earned back before the next read. The arithmetic only: Throttle decides
// who has a bucket and what a refusal leaves behind. Its session holds it and only the
// connection's loop touches it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace buzz::server {

struct FrameBucket {
  float tokens = 0;
  int64_t at_ms = -1;  // when last refilled (steady clock, ms); -1 = never used, full

  // One unit at now_ms from a bucket of `size` refilled at per_sec a second:
  // true when it had one (and spent it).
  bool take(int64_t now_ms, uint32_t per_sec, float size) {
    tokens = at_ms < 0 ? size : std::min(size, tokens + float(now_ms - at_ms) * float(per_sec) / 1000.0f);
    at_ms = now_ms;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }

  // After a refused take: whole seconds until a unit is back.
  uint64_t wait_secs(uint32_t per_sec) const { return uint64_t(std::ceil((1 - tokens) / float(per_sec))); }

  // Spends `units` more, never below -`size` (a bucket never used is not charged).
  void charge(float units, float size) {
    if (at_ms >= 0) tokens = std::max(-size, tokens - units);
  }
};

}  // namespace buzz::server
