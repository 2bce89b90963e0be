// Wall-clock time in Unix seconds, the unit of Nostr's created_at.
// Every time-window rule (±60 s AUTH, ±120 s admin, ±900 s ingest) reads it here.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace buzz::engine {

// How far a stored event's created_at may lie from the relay's clock (docs/reference/protocol.md §2.5).
inline constexpr int64_t kIngestClockSkewSecs = 900;

// How far this process's clock runs ahead of the system's, in milliseconds:
// 0, except in a relay started for tests with BUZZ_TEST_CLOCK=1, whose tests
// move it forward instead of waiting (docs/testing.md, "The test clock").
inline std::atomic<int64_t> clock_offset_ms{0};

inline void advance_clock(uint64_t seconds) { clock_offset_ms.fetch_add(int64_t(seconds) * 1000, std::memory_order_relaxed); }

// Milliseconds, for ordering settings made within one second.
inline uint64_t unix_now_ms() {
  return uint64_t(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count() +
                  clock_offset_ms.load(std::memory_order_relaxed));
}

inline uint64_t unix_now() { return unix_now_ms() / 1000; }

// The monotonic clock in milliseconds, run ahead by the same offset: for what
// is measured between two readings (a frame bucket's refill, an idle or auth
// deadline), so that a test may move it forward too.
inline int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
             .count() +
         clock_offset_ms.load(std::memory_order_relaxed);
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
