// The document mapping shared by every search backend; see search_document.h.
#include "index/search_document.h"

#include <simdjson.h>

#include "engine/kind_numbers.h"

namespace buzz::index {
namespace {

// The object's string member `key`, trimmed of ASCII whitespace, or empty.
std::string_view trimmed_member(simdjson::dom::object object, std::string_view key) {
  std::string_view value;
  if (object[key].get(value) != simdjson::SUCCESS) return {};
  size_t begin = value.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  size_t end = value.find_last_not_of(" \t\r\n");
  return value.substr(begin, end - begin + 1);
}

std::optional<simdjson::dom::object> json_object(simdjson::dom::parser& parser, std::string_view text) {
  simdjson::dom::object object;
  if (parser.parse(text.data(), text.size()).get(object) != simdjson::SUCCESS) return std::nullopt;
  return object;
}

}  // namespace

bool is_searchable_kind(uint16_t kind) {
  switch (kind) {
    case kind::kProfile:
    case kind::kTextNote:
    case kind::kStreamMessage:
    case kind::kLongFormArticle:
    case kind::kStreamMessageV2:
    case kind::kMessageEdit:
    case kind::kDiff:
    case kind::kForumPost:
    case kind::kForumComment: return true;
    default:
      return false;
  }
}

std::string searchable_text(const engine::Event& event) {
  if (event.kind != kind::kProfile && event.kind != kind::kStreamMessageV2) return event.content;
  thread_local simdjson::dom::parser parser;
  std::optional<simdjson::dom::object> object = json_object(parser, event.content);
  if (!object) return event.content;
  if (event.kind == kind::kStreamMessageV2) {
    std::string_view text;
    return (*object)["text"].get(text) == simdjson::SUCCESS ? std::string(text) : event.content;
  }
  // <raw content> " " <the non-empty names joined by " ">
  std::string out = event.content;
  for (std::string_view key : {"display_name", "name", "nip05"}) {
    std::string_view value = trimmed_member(*object, key);
    if (value.empty()) continue;
    out += ' ';
    out += value;
  }
  return out;
}

std::optional<SearchDocument> make_search_document(const engine::Event& event, std::string_view channel) {
  if (!is_searchable_kind(event.kind)) return std::nullopt;
  SearchDocument doc;
  doc.id = event.id_hex();
  doc.content = searchable_text(event);
  doc.kind = event.kind;
  doc.pubkey = event.pubkey_hex();
  doc.channel_id = channel.empty() ? std::string(kGlobalChannel) : std::string(channel);
  doc.created_at = event.created_at;
  return doc;
}

}  // namespace buzz::index
