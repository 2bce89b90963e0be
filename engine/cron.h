// Cron: the schedule expressions of workflow triggers (docs/reference/workflows.md §4.1),
// with the semantics of the Rust `cron` 0.16 crate that stored definitions
// were written for: a seconds field, day-of-week 1–7 with 1 = Sunday, names,
// `?`, steps and lists, day-of-month AND day-of-week, an optional year, UTC.
//
// Pure and thread-safe: a parsed CronSchedule is a value.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/result.h"

namespace buzz::engine {

class CronSchedule {
 public:
  // Normalizes by field count (5 → "0 <expr> *", 6 → "<expr> *", 7 as is)
  // and parses; the error is the parser's message, without a prefix.
  static Result<CronSchedule> parse(std::string_view expression);

  // The first scheduled instant strictly after `after` (unix seconds, UTC), or
  // nullopt when none is left (a year list in the past).
  std::optional<uint64_t> next_after(uint64_t after) const;
  // The scheduler's rule (§4.2): fire iff the first instant strictly after
  // now − window is ≤ now.
  bool due(uint64_t now, uint64_t window = 60) const;

  static constexpr int kMinYear = 1970, kMaxYear = 2099;

 private:
  std::bitset<60> seconds_, minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1..31
  std::bitset<13> months_;         // 1..12
  std::bitset<8> days_of_week_;    // 1..7, 1 = Sunday
  std::bitset<kMaxYear - kMinYear + 1> years_;
};

}  // namespace buzz::engine
