// Events rows both ways; see pg_event_row.h.
#include "migrate/pg_event_row.h"

#include <cstdlib>

#include "engine/event_parse.h"
#include "engine/hex.h"
#include "engine/signature.h"

namespace buzz::migrate {

engine::Result<engine::Event> event_from_columns(const EventColumns& row, simdjson::dom::parser& parser) {
  using engine::Error;
  if (row.raw) {
    auto parsed = engine::parse_event_json(*row.raw);
    if (!parsed) return Error{"buzz_event_raw.raw: " + parsed.error()};
    if (engine::to_hex(parsed->id) != row.id_hex) return Error{"buzz_event_raw.raw holds another event"};
    return parsed;
  }
  engine::Event e;
  if (!engine::from_hex(row.id_hex, &e.id) || !engine::from_hex(row.pubkey_hex, &e.pubkey) ||
      !engine::from_hex(row.sig_hex, &e.sig)) {
    return Error{"id, pubkey or sig has the wrong length"};
  }
  e.created_at = std::strtoull(std::string(row.created_at).c_str(), nullptr, 10);
  const uint64_t kind = std::strtoull(std::string(row.kind).c_str(), nullptr, 10);
  if (kind > 65535) return Error{"kind out of range"};
  e.kind = uint16_t(kind);
  simdjson::dom::array tags;
  if (parser.parse(row.tags_json.data(), row.tags_json.size()).get(tags)) return Error{"tags is not a JSON array"};
  for (simdjson::dom::element tag : tags) {
    simdjson::dom::array items;
    if (tag.get(items)) return Error{"a tag is not an array"};
    engine::Tag t;
    for (simdjson::dom::element item : items) {
      std::string_view sv;
      if (item.get(sv)) return Error{"a tag holds a non-string"};
      t.emplace_back(sv);
    }
    e.tags.push_back(std::move(t));
  }
  e.content = std::string(row.content);
  e.raw = engine::serialize_event(e);
  return e;
}

bool holds_nul(const engine::Event& e) {
  if (e.content.find('\0') != std::string::npos) return true;
  for (const engine::Tag& t : e.tags) {
    for (const std::string& v : t) {
      if (v.find('\0') != std::string::npos) return true;
    }
  }
  return false;
}

std::string text_array(const std::vector<std::string>& items) {
  std::string out = "{";
  for (const std::string& s : items) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

std::string bytea_array(const std::vector<std::string_view>& items) {
  std::string out = "{";
  for (std::string_view b : items) {
    if (out.size() > 1) out += ',';
    out += "\"\\\\x";
    out += engine::to_hex(reinterpret_cast<const uint8_t*>(b.data()), b.size());
    out += '"';
  }
  return out + "}";
}

}  // namespace buzz::migrate
