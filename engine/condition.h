// The workflow condition language (docs/reference/workflows.md §7): `filter:` and `if:`
// expressions evaluated against typed variables (trigger_*, steps_*_output_*).
// evalexpr 11 semantics: typed operators with checked integer arithmetic,
// no short-circuit, `==` false across types, a boolean result; the four
// custom string functions plus str::to_lowercase, str::to_uppercase,
// str::trim and len. Limits: 4096 bytes of text, bounded nesting, a 100 ms
// budget checked inside the evaluator.
//
// Pure and thread-safe. Errors come back as the full stored text:
// "condition evaluation error: '<expr>': <detail>".
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/condition_parser.h"
#include "engine/result.h"

namespace buzz::engine {

struct ConditionValue {
  enum class Type : uint8_t { kString, kInt, kFloat, kBool, kEmpty, kTuple };
  Type type = Type::kEmpty;
  std::string s;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<ConditionValue> tuple;

  static ConditionValue string(std::string v) { return of(Type::kString, [&](auto& x) { x.s = std::move(v); }); }
  static ConditionValue integer(int64_t v) { return of(Type::kInt, [&](auto& x) { x.i = v; }); }
  static ConditionValue real(double v) { return of(Type::kFloat, [&](auto& x) { x.f = v; }); }
  static ConditionValue boolean(bool v) { return of(Type::kBool, [&](auto& x) { x.b = v; }); }
  static ConditionValue empty() { return {}; }
  static ConditionValue of(Type t) {
    ConditionValue v;
    v.type = t;
    return v;
  }
  static ConditionValue of(Type t, auto&& fill) {
    ConditionValue v;
    v.type = t;
    fill(v);
    return v;
  }
};

using ConditionVariables = std::unordered_map<std::string, ConditionValue>;

inline constexpr std::chrono::milliseconds kConditionBudget{100};

// Parses (limits included) without evaluating: the save-time check. The
// error is the bare detail.
Status check_condition(std::string_view expression);

// A parsed expression, for one evaluated many times: a trigger filter is
// checked against every message of its channel, and parsing it once takes the
// lexer and parser off each of those.
class Condition {
 public:
  // Parses (limits included); the error is the bare detail, as check_condition's.
  static Result<Condition> compile(std::string_view expression);
  // A boolean, or the full error text.
  Result<bool> evaluate(const ConditionVariables& variables, std::chrono::milliseconds budget = kConditionBudget) const;
  const std::string& text() const { return text_; }

 private:
  Condition(std::string text, ConditionNode tree) : text_(std::move(text)), tree_(std::move(tree)) {}
  std::string text_;
  ConditionNode tree_;
};

// Compiles and evaluates once: a boolean, or the full error text.
Result<bool> evaluate_condition(std::string_view expression, const ConditionVariables& variables,
                                std::chrono::milliseconds budget = kConditionBudget);

}  // namespace buzz::engine
