// The subscription rules (docs/reference/agents-and-cli.md §A.2.3): which events reach the
// agents. `--subscribe config` reads them from a TOML file; `mentions` and
// `all` are one built-in rule each. Rules are tried in order and the first
// match wins; a filter expression (the workflow condition language) that
// times out, fails or is not boolean matches nothing at all (fail closed),
// and a rule whose filter timed out 5 times running is disabled.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/condition.h"
#include "engine/event.h"
#include "engine/result.h"
#include "tools/acp/acp_config.h"

namespace buzz::acp {

struct Rule {
  std::string name;
  bool all_channels = true;
  std::vector<std::string> channels;  // when not all
  std::vector<int> kinds;             // empty: every kind
  bool require_mention = false;
  std::optional<engine::Condition> filter;
  std::string prompt_tag;
  int consecutive_timeouts = 0;
  bool disabled = false;

  bool covers(const std::string& channel) const;
};

// The rules of a rules file's text; the error is the spec's message.
engine::Result<std::vector<Rule>> parse_rules(const std::string& toml);
// The rules of the configured mode (the file is read only in config mode).
engine::Result<std::vector<Rule>> rules_for(const Config& config);

// The first rule matching the event of `channel`, or nullptr.
Rule* match_rule(std::vector<Rule>& rules, const engine::Event& e, const std::string& channel, const std::string& agent_hex);

// One channel's REQ filter, merged over the rules covering it: the union of
// their kinds (none = every kind), and the mention only if all require it.
// nullopt when no rule covers the channel (no subscription).
struct ChannelFilter {
  std::vector<int> kinds;  // empty: every kind
  bool require_mention = false;
};
std::optional<ChannelFilter> channel_filter(const std::vector<Rule>& rules, const std::string& channel);

}  // namespace buzz::acp
