// Definition: a workflow's YAML parsed into its typed structure, validated,
// and written as the canonical JSON that is stored (docs/reference/workflows.md §2–§3).
//
// Both the YAML a user posts and the stored JSON go through parse_definition
// (JSON is YAML), so what is stored always reads back the same way. Unknown
// keys are ignored; every optional field is written explicitly as null.
//
// Pure and thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/condition.h"
#include "engine/result.h"

namespace buzz::server {

// The largest YAML (or stored JSON) accepted: far beyond a real workflow,
// small enough that a hostile document cannot cost much to parse.
inline constexpr size_t kMaxDefinitionBytes = 64 * 1024;
inline constexpr size_t kMaxSteps = 100;
// The longest delay (seed: 300 s; docs/reference/workflows.md §9.7, Buzz decision).
inline constexpr uint64_t kMaxDelaySecs = 300;

enum class TriggerKind : uint8_t { kMessagePosted, kReactionAdded, kSchedule, kWebhook, kDiffPosted };
enum class ActionKind : uint8_t {
  kSendMessage,
  kSendDm,
  kSetChannelTopic,
  kAddReaction,
  kCallWebhook,
  kRequestApproval,
  kDelay,
};

std::string_view trigger_name(TriggerKind k);
std::string_view action_name(ActionKind k);

struct Trigger {
  TriggerKind on = TriggerKind::kMessagePosted;
  std::optional<std::string> filter;    // message_posted, diff_posted
  std::shared_ptr<const engine::Condition> compiled_filter;  // the filter, parsed once (parse_definition)
  std::optional<std::string> emoji;     // reaction_added
  std::optional<std::string> cron;      // schedule
  std::optional<std::string> interval;  // schedule
};

struct Step {
  std::string id;
  std::optional<std::string> name;
  std::optional<std::string> condition;  // `if:`
  std::optional<uint64_t> timeout_secs;
  ActionKind action = ActionKind::kSendMessage;
  // The action's string fields, in its canonical order (absent = nullopt).
  std::vector<std::pair<std::string, std::optional<std::string>>> fields;
  std::optional<std::vector<std::pair<std::string, std::string>>> headers;  // call_webhook

  // A field's value, or nullopt when absent (or not one of the action's).
  std::optional<std::string> field(std::string_view name) const;
};

struct Definition {
  std::string name;
  std::optional<std::string> description;
  Trigger trigger;
  std::vector<Step> steps;
  bool enabled = true;
  std::string webhook_secret;  // "_webhook_secret" of the stored JSON; never in API answers
};

// Parses and validates. The error is the full text a REST answer wraps:
// "invalid YAML: …" or "invalid definition: …".
engine::Result<Definition> parse_definition(std::string_view yaml);

// The canonical JSON (§2.5); with_secret adds "_webhook_secret" (storage only).
std::string definition_json(const Definition& d, bool with_secret);

}  // namespace buzz::server
