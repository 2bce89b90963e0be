// RunContext: what a run's steps may read — the trigger context (§5.2) and
// the outputs of the steps completed so far (§13) — and the two views of it
// the steps use: template values (§6) and condition variables (§7.1).
// A run's context is rebuilt from its stored record when it resumes.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/condition.h"

namespace buzz::server {

// One top-level value of a step's JSON output, typed as JSON typed it.
struct OutputValue {
  enum class Kind : uint8_t { kString, kInt, kFloat, kBool, kNull, kJson };
  Kind kind = Kind::kNull;
  std::string text;  // the string, the number's digits, "true"/"false", or compact JSON

  static OutputValue string(std::string s) { return {Kind::kString, std::move(s)}; }
  static OutputValue integer(int64_t n) { return {Kind::kInt, std::to_string(n)}; }
  static OutputValue boolean(bool b) { return {Kind::kBool, b ? "true" : "false"}; }
  static OutputValue null() { return {}; }
};
using StepOutput = std::vector<std::pair<std::string, OutputValue>>;

std::string output_json(const StepOutput& output);
StepOutput parse_output(std::string_view json);  // a non-object is an empty output

// The outputs recorded in an execution trace: every entry with an "output".
std::map<std::string, StepOutput> outputs_from_trace(std::string_view trace_json);

struct TriggerContext {
  std::string text, author, channel_id, timestamp, emoji, message_id;
  std::vector<std::pair<std::string, std::string>> webhook_fields;

  std::string to_json() const;
  static TriggerContext from_json(std::string_view json);
  // A webhook (or manual) body's top-level keys: strings as they are, other
  // values as compact JSON; a body that is not an object gives none.
  static std::vector<std::pair<std::string, std::string>> fields_of(std::string_view json_object);
};

struct RunContext {
  TriggerContext trigger;
  std::map<std::string, StepOutput> outputs;  // by step id

  // §7.1: trigger_* (webhook fields first, then the standard names over them)
  // and, unless for a trigger filter, steps_<id>_output_<field>.
  engine::ConditionVariables variables(bool with_steps = true) const;
};

}  // namespace buzz::server
