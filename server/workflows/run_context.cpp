// Trigger contexts and step outputs as JSON, and as condition variables; see run_context.h.
#include "server/workflows/run_context.h"

#include <simdjson.h>

#include "engine/json_text.h"

namespace buzz::server {
namespace {

OutputValue value_of(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::STRING: return OutputValue::string(std::string(std::string_view(e)));
    case simdjson::dom::element_type::INT64: return OutputValue::integer(int64_t(e));
    case simdjson::dom::element_type::UINT64: return {OutputValue::Kind::kFloat, std::to_string(uint64_t(e))};
    case simdjson::dom::element_type::DOUBLE: return {OutputValue::Kind::kFloat, simdjson::minify(e)};
    case simdjson::dom::element_type::BOOL: return OutputValue::boolean(bool(e));
    case simdjson::dom::element_type::NULL_VALUE: return OutputValue::null();
    default: return {OutputValue::Kind::kJson, simdjson::minify(e)};
  }
}

std::string value_json(const OutputValue& v) {
  switch (v.kind) {
    case OutputValue::Kind::kString: return json_string(v.text);
    case OutputValue::Kind::kNull: return "null";
    default: return v.text;
  }
}

}  // namespace

std::string output_json(const StepOutput& output) {
  JsonFields out;
  for (const auto& [k, v] : output) out.json(k, value_json(v));
  return out.str();
}

StepOutput parse_output(std::string_view json) {
  StepOutput out;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json.data(), json.size()).get_object().get(obj)) return out;
  for (auto field : obj) out.emplace_back(std::string(field.key), value_of(field.value));
  return out;
}

std::map<std::string, StepOutput> outputs_from_trace(std::string_view trace_json) {
  std::map<std::string, StepOutput> out;
  simdjson::dom::parser parser;
  simdjson::dom::array entries;
  if (parser.parse(trace_json.data(), trace_json.size()).get_array().get(entries)) return out;
  for (simdjson::dom::element e : entries) {
    std::string_view id;
    simdjson::dom::element output;
    if (e["step_id"].get_string().get(id) || e["output"].get(output)) continue;
    out[std::string(id)] = parse_output(simdjson::minify(output));
  }
  return out;
}

std::string TriggerContext::to_json() const {
  JsonFields fields;
  for (const auto& [k, v] : webhook_fields) fields.string(k, v);
  return json_object({{"text", json_string(text)},
                      {"author", json_string(author)},
                      {"channel_id", json_string(channel_id)},
                      {"timestamp", json_string(timestamp)},
                      {"emoji", json_string(emoji)},
                      {"message_id", json_string(message_id)},
                      {"webhook_fields", fields.str()}});
}

TriggerContext TriggerContext::from_json(std::string_view json) {
  TriggerContext c;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json.data(), json.size()).get_object().get(obj)) return c;
  auto str = [&](const char* key) {
    std::string_view v;
    return obj[key].get_string().get(v) ? std::string() : std::string(v);
  };
  c.text = str("text");
  c.author = str("author");
  c.channel_id = str("channel_id");
  c.timestamp = str("timestamp");
  c.emoji = str("emoji");
  c.message_id = str("message_id");
  simdjson::dom::object fields;
  if (!obj["webhook_fields"].get_object().get(fields)) {
    for (auto f : fields) {
      std::string_view v;
      if (!f.value.get_string().get(v)) c.webhook_fields.emplace_back(std::string(f.key), std::string(v));
    }
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> TriggerContext::fields_of(std::string_view json_object) {
  std::vector<std::pair<std::string, std::string>> out;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json_object.data(), json_object.size()).get_object().get(obj)) return out;
  for (auto f : obj) {
    std::string_view s;
    out.emplace_back(std::string(f.key), f.value.get_string().get(s) ? simdjson::minify(f.value) : std::string(s));
  }
  return out;
}

engine::ConditionVariables RunContext::variables(bool with_steps) const {
  engine::ConditionVariables vars;
  using V = engine::ConditionValue;
  for (const auto& [k, v] : trigger.webhook_fields) {
    if (k.starts_with("trigger_") || k.starts_with("steps_")) continue;
    vars["trigger_" + k] = V::string(v);
  }
  // The standard names last, so a webhook field cannot spoof them.
  vars["trigger_text"] = V::string(trigger.text);
  vars["trigger_author"] = V::string(trigger.author);
  vars["trigger_channel_id"] = V::string(trigger.channel_id);
  vars["trigger_timestamp"] = V::string(trigger.timestamp);
  vars["trigger_emoji"] = V::string(trigger.emoji);
  vars["trigger_message_id"] = V::string(trigger.message_id);
  if (!with_steps) return vars;
  for (const auto& [id, output] : outputs) {
    for (const auto& [k, v] : output) {
      V value;
      switch (v.kind) {
        case OutputValue::Kind::kString:
        case OutputValue::Kind::kJson: value = V::string(v.text); break;
        case OutputValue::Kind::kInt: value = V::integer(std::stoll(v.text)); break;
        case OutputValue::Kind::kFloat: value = V::real(std::stod(v.text)); break;
        case OutputValue::Kind::kBool: value = V::boolean(v.text == "true"); break;
        case OutputValue::Kind::kNull: value = V::empty(); break;
      }
      vars["steps_" + id + "_output_" + k] = std::move(value);
    }
  }
  return vars;
}

}  // namespace buzz::server
