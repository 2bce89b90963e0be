// The prompt text the harness sends for a batch of events (docs/reference/agents-and-cli.md
// §A.7): [System], [Context] with the scope of the batch's last event, an
// optional thread or conversation context block, then the events, with the
// events of an interrupted turn first. Pure: the inputs (channel, labels,
// fetched context) are gathered by the caller.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/event.h"

namespace buzz::acp {

struct ChannelInfo {
  std::string id, name, type;  // name empty when unknown; type "dm" for DMs
};

// One event of a batch with the prompt tag of the rule that matched it.
struct TaggedEvent {
  engine::Event event;
  std::string tag;
};

struct ContextMessage {
  std::string pubkey;  // hex
  uint64_t created_at = 0;
  std::string content;
};

struct ContextBlock {
  bool thread = true;  // [Thread Context …] or [Conversation Context …]
  std::vector<ContextMessage> messages;
  size_t total = 0;
  bool truncated = false;
};

struct PromptInput {
  std::optional<std::string> system_prompt;
  ChannelInfo channel;
  std::vector<TaggedEvent> cancelled;  // from an interrupted turn, shown first
  std::vector<TaggedEvent> events;     // at least one
  std::optional<ContextBlock> context;
  std::map<std::string, std::string> labels;  // pubkey hex → display name or NIP-05
};

// An e tag counts only with ≥ 4 elements and a marker of root or reply.
struct ThreadRef {
  std::optional<std::string> root, parent;
};
ThreadRef thread_ref(const engine::Event& e);

// Control characters removed, trimmed, at most 64 characters.
std::string sanitize_label(std::string_view name);

// `2026-01-01T12:00:00+00:00`.
std::string rfc3339(uint64_t unix_seconds);

std::string build_prompt(const PromptInput& in);

// The default heartbeat prompt (§A.8), with the time of now.
std::string heartbeat_prompt(uint64_t now);

}  // namespace buzz::acp
