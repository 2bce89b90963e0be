// Fuzz target: workflow conditions (`filter:` / `if:`), written by any channel
// member and evaluated by the relay (engine/condition*.cpp).
//
// Any text either evaluates to a boolean or fails with the one error prefix,
// the same way twice (unless the wall-clock budget ran out once), within the
// limits (length, nesting, budget); the
// save-time check and the evaluator agree on what parses.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/condition.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using buzz::engine::ConditionValue;
  std::string_view expr(reinterpret_cast<const char*>(data), size);
  const buzz::engine::ConditionVariables vars = {
      {"trigger_text", ConditionValue::string("P1 in production")}, {"trigger_author", ConditionValue::string("ab")},
      {"steps_a_output_status", ConditionValue::integer(201)},      {"steps_a_output_ok", ConditionValue::boolean(true)},
      {"x", ConditionValue::real(1.5)},                              {"nothing", ConditionValue::empty()}};
  auto first = buzz::engine::evaluate_condition(expr, vars);
  auto second = buzz::engine::evaluate_condition(expr, vars);
  // The budget is wall-clock time: a process descheduled mid-evaluation (a
  // niced fuzzer on a busy machine) may time out once and not the next time.
  auto timed_out = [](const auto& r) { return !r.ok() && r.error().find("': evaluation timed out") != std::string::npos; };
  if (timed_out(first) || timed_out(second)) return 0;
  FUZZ_CHECK(first.ok() == second.ok());
  if (first.ok()) {
    FUZZ_CHECK(*first == *second);
    FUZZ_CHECK(buzz::engine::check_condition(expr).ok());
  } else {
    FUZZ_CHECK(first.error().rfind("condition evaluation error: '", 0) == 0);
    FUZZ_CHECK(first.error() == second.error());
  }
  if (size > buzz::engine::kMaxConditionBytes) FUZZ_CHECK(!first.ok());
  return 0;
}
