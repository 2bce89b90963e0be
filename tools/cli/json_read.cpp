#include "tools/cli/json_read.h"

#include <simdjson.h>

namespace buzz::cli {

std::optional<std::string> string_field(std::string_view json, std::string_view key) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(json.data(), json.size()).get(root)) return std::nullopt;
  std::string_view value;
  if (root[key].get(value)) return std::nullopt;
  return std::string(value);
}

std::vector<ReactionRow> reaction_rows(std::string_view json) {
  std::vector<ReactionRow> rows;
  simdjson::dom::parser parser;
  simdjson::dom::array groups;
  if (parser.parse(json.data(), json.size())["reactions"].get(groups)) return rows;
  for (simdjson::dom::element group : groups) {
    std::string_view emoji;
    simdjson::dom::array users;
    if (group["emoji"].get(emoji) || group["users"].get(users)) continue;
    for (simdjson::dom::element user : users) {
      std::string_view pubkey, id;
      if (user["pubkey"].get(pubkey) || user["reaction_event_id"].get(id)) continue;  // id omitted when unknown
      rows.push_back({std::string(emoji), std::string(pubkey), std::string(id)});
    }
  }
  return rows;
}

}  // namespace buzz::cli
