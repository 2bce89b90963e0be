// Wall-clock time in Unix seconds, the unit of Nostr's created_at.
// Every time-window rule (±60 s AUTH, ±120 s admin, ±900 s ingest) reads it here.
#pragma once

#include <chrono>
#include <cstdint>

namespace buzz::engine {

// How far a stored event's created_at may lie from the relay's clock (docs/reference/protocol.md §2.5).
inline constexpr int64_t kIngestClockSkewSecs = 900;

inline uint64_t unix_now() {
  return uint64_t(std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count());
}

// Milliseconds, for ordering settings made within one second.
inline uint64_t unix_now_ms() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count());
}

// Signed seconds from now to t: positive when t is in the future. created_at
// is any unsigned 64-bit integer, so the difference saturates at ±INT64_MAX:
// its absolute value always exists, and 2^63 + now reads as far in the
// future, not as -2^63 (whose llabs is undefined, and was negative: "near").
inline int64_t seconds_from(uint64_t now, uint64_t t) {
  constexpr uint64_t kMax = uint64_t(INT64_MAX);
  if (t >= now) return t - now > kMax ? INT64_MAX : int64_t(t - now);
  return now - t > kMax ? -INT64_MAX : -int64_t(now - t);
}

}  // namespace buzz::engine
