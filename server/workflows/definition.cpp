// Reading, validating and writing workflow definitions; see definition.h.
// yaml-cpp throws on syntax errors: caught here, so a hostile document is a
// value like any other bad input.
#include "server/workflows/definition.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <set>

#include "engine/condition.h"
#include "engine/cron.h"
#include "engine/json_text.h"
#include "engine/text.h"
#include "server/workflows/duration.h"

namespace buzz::server {
namespace {

constexpr std::array<std::string_view, 5> kTriggerNames = {"message_posted", "reaction_added", "schedule", "webhook",
                                                           "diff_posted"};
constexpr std::array<std::string_view, 7> kActionNames = {"send_message",     "send_dm", "set_channel_topic",
                                                          "add_reaction",     "call_webhook", "request_approval",
                                                          "delay"};

struct FieldSpec {
  std::string_view name;
  bool required;
};
// Each action's string fields, in canonical order (call_webhook's headers sit between method and body).
const std::vector<FieldSpec>& action_fields(ActionKind a) {
  static const std::vector<FieldSpec> kFields[] = {
      {{"text", true}, {"channel", false}},
      {{"to", true}, {"text", true}},
      {{"topic", true}},
      {{"emoji", true}},
      {{"url", true}, {"method", false}, {"body", false}},
      {{"from", true}, {"message", true}, {"timeout", false}},
      {{"duration", true}},
  };
  return kFields[size_t(a)];
}

// A shape error, as serde_yaml words them.
struct ShapeError {
  std::string message;
};

std::string where(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return "";
  return " at line " + std::to_string(m.line + 1) + " column " + std::to_string(m.column + 1);
}

bool present(const YAML::Node& n) { return n && !n.IsNull(); }

std::optional<std::string> opt_string(const YAML::Node& map, const char* key, const std::string& path) {
  YAML::Node n = map[key];
  if (!present(n)) return std::nullopt;
  if (!n.IsScalar()) throw ShapeError{path + key + ": invalid type: expected a string" + where(n)};
  return n.Scalar();
}

std::string req_string(const YAML::Node& map, const char* key, const std::string& path) {
  auto v = opt_string(map, key, path);
  if (!v) throw ShapeError{path + "missing field `" + key + "`" + where(map)};
  return *v;
}

std::string expected_list(const auto& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "`" : ", `") + std::string(n) + "`";
  return out;
}

Definition read_definition(const YAML::Node& root) {
  if (!root.IsMap()) throw ShapeError{"invalid type: expected a mapping at the top level" + where(root)};
  Definition d;
  d.name = req_string(root, "name", "");
  d.description = opt_string(root, "description", "");
  if (YAML::Node e = root["enabled"]; present(e)) {
    bool b;
    if (!e.IsScalar() || !YAML::convert<bool>::decode(e, b)) throw ShapeError{"enabled: invalid type: expected a boolean" + where(e)};
    d.enabled = b;
  }
  if (auto secret = opt_string(root, "_webhook_secret", "")) d.webhook_secret = *secret;

  YAML::Node trigger = root["trigger"];
  if (!present(trigger)) throw ShapeError{"missing field `trigger`" + where(root)};
  if (!trigger.IsMap()) throw ShapeError{"trigger: invalid type: expected a mapping" + where(trigger)};
  const std::string on = req_string(trigger, "on", "trigger: ");
  size_t t = 0;
  while (t < kTriggerNames.size() && kTriggerNames[t] != on) ++t;
  if (t == kTriggerNames.size()) {
    throw ShapeError{"trigger: unknown variant `" + on + "`, expected one of " + expected_list(kTriggerNames) + where(trigger)};
  }
  d.trigger.on = TriggerKind(t);
  switch (d.trigger.on) {
    case TriggerKind::kMessagePosted:
    case TriggerKind::kDiffPosted: d.trigger.filter = opt_string(trigger, "filter", "trigger: "); break;
    case TriggerKind::kReactionAdded: d.trigger.emoji = opt_string(trigger, "emoji", "trigger: "); break;
    case TriggerKind::kSchedule:
      d.trigger.cron = opt_string(trigger, "cron", "trigger: ");
      d.trigger.interval = opt_string(trigger, "interval", "trigger: ");
      break;
    case TriggerKind::kWebhook: break;
  }

  YAML::Node steps = root["steps"];
  if (!present(steps)) throw ShapeError{"missing field `steps`" + where(root)};
  if (!steps.IsSequence()) throw ShapeError{"steps: invalid type: expected a sequence" + where(steps)};
  if (steps.size() > kMaxSteps) {
    throw ShapeError{"steps: " + std::to_string(steps.size()) + " steps, more than the limit of " + std::to_string(kMaxSteps)};
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const YAML::Node s = steps[i];
    const std::string path = "steps[" + std::to_string(i) + "]: ";
    if (!s.IsMap()) throw ShapeError{path + "invalid type: expected a mapping" + where(s)};
    Step step;
    step.id = req_string(s, "id", path);
    step.name = opt_string(s, "name", path);
    step.condition = opt_string(s, "if", path);
    if (auto timeout = opt_string(s, "timeout_secs", path)) {
      uint64_t n = 0;
      bool ok = !timeout->empty();
      for (char c : *timeout) ok = ok && c >= '0' && c <= '9' && !__builtin_mul_overflow(n, 10, &n) &&
                                   !__builtin_add_overflow(n, uint64_t(c - '0'), &n);
      if (!ok) throw ShapeError{path + "timeout_secs: invalid value `" + *timeout + "`, expected an unsigned integer"};
      step.timeout_secs = n;
    }
    const std::string action = req_string(s, "action", path);
    size_t a = 0;
    while (a < kActionNames.size() && kActionNames[a] != action) ++a;
    if (a == kActionNames.size()) {
      throw ShapeError{path + "unknown variant `" + action + "`, expected one of " + expected_list(kActionNames) + where(s)};
    }
    step.action = ActionKind(a);
    for (const FieldSpec& f : action_fields(step.action)) {
      const std::string key(f.name);
      step.fields.emplace_back(key, f.required ? req_string(s, key.c_str(), path) : opt_string(s, key.c_str(), path));
    }
    if (step.action == ActionKind::kCallWebhook) {
      if (YAML::Node h = s["headers"]; present(h)) {
        if (!h.IsMap()) throw ShapeError{path + "headers: invalid type: expected a mapping" + where(h)};
        std::vector<std::pair<std::string, std::string>> headers;
        for (const auto& kv : h) {
          if (!kv.first.IsScalar() || !kv.second.IsScalar()) {
            throw ShapeError{path + "headers: invalid type: expected string keys and values" + where(h)};
          }
          headers.emplace_back(kv.first.Scalar(), kv.second.Scalar());
        }
        step.headers = std::move(headers);
      }
    }
    d.steps.push_back(std::move(step));
  }
  return d;
}

bool valid_step_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// The rules of §3, in order, then the Buzz save-time checks; the first failure wins.
engine::Status validate(const Definition& d) {
  auto bad = [](std::string m) { return engine::Error{"invalid definition: " + std::move(m)}; };
  if (engine::trim(d.name).empty()) return bad("name is required and must not be empty");
  if (d.steps.empty()) return bad("at least one step is required");
  std::set<std::string> ids;
  for (const Step& s : d.steps) {
    if (engine::trim(s.id).empty()) return bad("step id must not be empty");
    if (!valid_step_id(s.id)) {
      return bad("step id '" + s.id + "' is invalid: must contain only alphanumeric characters and underscores");
    }
    if (!ids.insert(s.id).second) return bad("duplicate step id: " + s.id);
  }
  if (d.trigger.on == TriggerKind::kSchedule) {
    const auto &cron = d.trigger.cron, &interval = d.trigger.interval;
    if (!cron && !interval) return bad("schedule trigger requires either 'cron' or 'interval'");
    if (cron && interval) return bad("schedule trigger cannot specify both 'cron' and 'interval'; use one or the other");
    if (cron) {
      if (auto parsed = engine::CronSchedule::parse(*cron); !parsed) {
        return bad("invalid cron expression '" + *cron + "': " + parsed.error());
      }
    } else {
      auto secs = parse_duration(*interval);
      if (!secs) return bad("invalid interval '" + *interval + "': expected a duration like '30m', '1h', or '60s'");
      if (*secs < 60) return bad("interval must be at least 60s (cron loop ticks every 60 seconds)");
    }
  }
  // Buzz: what would certainly fail at run time is refused now.
  if (d.trigger.filter) {
    if (auto s = engine::check_condition(*d.trigger.filter); !s) return bad("trigger filter: " + s.error());
  }
  for (const Step& s : d.steps) {
    auto step_bad = [&](const std::string& why) { return bad("step '" + s.id + "': " + why); };
    if (s.condition) {
      if (auto c = engine::check_condition(*s.condition); !c) return step_bad(c.error());
    }
    if (s.action == ActionKind::kDelay) {
      auto secs = parse_duration(*s.field("duration"));
      if (!secs) return step_bad(secs.error());
      if (*secs > kMaxDelaySecs) {
        return step_bad("delay exceeds maximum of 300 seconds (got " + std::to_string(*secs) +
                        "s); use the scheduled resume pattern for long delays");
      }
    }
    if (s.action == ActionKind::kRequestApproval) {
      if (auto timeout = s.field("timeout")) {
        if (auto secs = parse_duration(*timeout); !secs) return step_bad(secs.error());
      }
    }
  }
  return {};
}

}  // namespace

std::string_view trigger_name(TriggerKind k) { return kTriggerNames[size_t(k)]; }
std::string_view action_name(ActionKind k) { return kActionNames[size_t(k)]; }

std::optional<std::string> Step::field(std::string_view name) const {
  for (const auto& [k, v] : fields) {
    if (k == name) return v;
  }
  return std::nullopt;
}

engine::Result<Definition> parse_definition(std::string_view yaml) {
  if (yaml.size() > kMaxDefinitionBytes) {
    return engine::Error{"invalid YAML: definition is " + std::to_string(yaml.size()) +
                         " bytes, more than the limit of " + std::to_string(kMaxDefinitionBytes)};
  }
  Definition d;
  try {
    d = read_definition(YAML::Load(std::string(yaml)));
  } catch (const ShapeError& e) {
    return engine::Error{"invalid YAML: " + e.message};
  } catch (const YAML::Exception& e) {
    return engine::Error{"invalid YAML: " + e.msg + (e.mark.is_null() ? "" : " at line " + std::to_string(e.mark.line + 1) +
                                                         " column " + std::to_string(e.mark.column + 1))};
  } catch (const std::exception& e) {
    return engine::Error{std::string("invalid YAML: ") + e.what()};
  }
  if (auto s = validate(d); !s) return engine::Error{s.error()};
  if (d.trigger.filter) {
    auto compiled = engine::Condition::compile(*d.trigger.filter);
    if (!compiled) return engine::Error{"invalid definition: trigger filter: " + compiled.error()};
    d.trigger.compiled_filter = std::make_shared<const engine::Condition>(std::move(*compiled));
  }
  return d;
}

// The keys in canonical order (JsonFields), unlike json_object's sorted ones.
std::string definition_json(const Definition& d, bool with_secret) {
  JsonFields trigger;
  trigger.string("on", trigger_name(d.trigger.on));
  switch (d.trigger.on) {
    case TriggerKind::kMessagePosted:
    case TriggerKind::kDiffPosted:
      trigger.nullable("filter", d.trigger.filter);
      break;
    case TriggerKind::kReactionAdded:
      trigger.nullable("emoji", d.trigger.emoji);
      break;
    case TriggerKind::kSchedule:
      trigger.nullable("cron", d.trigger.cron).nullable("interval", d.trigger.interval);
      break;
    case TriggerKind::kWebhook: break;
  }
  std::vector<std::string> steps;
  for (const Step& s : d.steps) {
    JsonFields o;
    o.string("id", s.id).nullable("name", s.name).nullable("if", s.condition);
    o.json("timeout_secs", s.timeout_secs ? std::to_string(*s.timeout_secs) : std::string("null"));
    o.string("action", action_name(s.action));
    for (const auto& [k, v] : s.fields) {
      if (k == "body" && s.action == ActionKind::kCallWebhook) {
        std::string headers = "null";
        if (s.headers) {
          JsonFields h;
          for (const auto& [hk, hv] : *s.headers) h.string(hk, hv);
          headers = h.str();
        }
        o.json("headers", headers);
      }
      o.nullable(k, v);
    }
    steps.push_back(o.str());
  }
  JsonFields root;
  root.string("name", d.name).nullable("description", d.description).json("trigger", trigger.str());
  root.json("steps", json_array(steps)).boolean("enabled", d.enabled);
  if (with_secret && !d.webhook_secret.empty()) root.string("_webhook_secret", d.webhook_secret);
  return root.str();
}

}  // namespace buzz::server
