// The few JSON reads the CLI makes of the relay's answers (a token, an error
// text, a profile's fields, a reactions list), through simdjson.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace buzz::cli {

// A top-level string field of a JSON object; nullopt if absent, not a
// string, or the text is not a JSON object.
std::optional<std::string> string_field(std::string_view json, std::string_view key);

// One user's reaction in GET /api/messages/{id}/reactions.
struct ReactionRow {
  std::string emoji, pubkey, reaction_event_id;
};
std::vector<ReactionRow> reaction_rows(std::string_view json);

}  // namespace buzz::cli
