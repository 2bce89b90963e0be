// Strict event parsing; see event_parse.h.
#include "engine/event_parse.h"

#include "engine/signature.h"

namespace buzz::engine {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

Error missing(const char* field) { return Error{std::string("missing field `") + field + "`"}; }

// Reads a lowercase-hex field of exactly N bytes.
template <size_t N>
Status read_hex(simdjson::dom::object obj, const char* field, std::array<uint8_t, N>* out) {
  element v;
  if (obj[field].get(v)) return missing(field);
  std::string_view s;
  if (v.get(s)) return Error{std::string(field) + " must be a string"};
  if (!from_hex(s, out)) {
    return Error{std::string(field) + " must be " + std::to_string(2 * N) + " lowercase hex characters"};
  }
  return {};
}

Status read_tags(element v, std::vector<Tag>* tags) {
  simdjson::dom::array outer;
  if (v.get(outer)) return Error{"tags must be an array of arrays of strings"};
  tags->reserve(outer.size());
  for (element t : outer) {
    simdjson::dom::array inner;
    if (t.get(inner)) return Error{"tags must be an array of arrays of strings"};
    if (inner.size() == 0) return Error{"a tag must have at least one element"};
    Tag& tag = tags->emplace_back();
    tag.reserve(inner.size());
    for (element s : inner) {
      std::string_view sv;
      if (s.get(sv)) return Error{"tag elements must be strings"};
      tag.emplace_back(sv);
    }
  }
  return {};
}

}  // namespace

Result<Event> parse_event(element value, std::string_view raw) {
  simdjson::dom::object obj;
  if (value.get(obj)) return Error{"event must be a JSON object"};
  Event e;
  if (Status s = read_hex(obj, "id", &e.id); !s) return Error{s.error()};
  if (Status s = read_hex(obj, "pubkey", &e.pubkey); !s) return Error{s.error()};
  if (!is_valid_pubkey(e.pubkey)) return Error{"pubkey is not a valid BIP-340 public key"};
  if (Status s = read_hex(obj, "sig", &e.sig); !s) return Error{s.error()};

  element v;
  if (obj["created_at"].get(v)) return missing("created_at");
  if (v.type() == element_type::UINT64) {
    e.created_at = v.get_uint64().value_unsafe();
  } else if (v.type() == element_type::INT64 && v.get_int64().value_unsafe() >= 0) {
    e.created_at = uint64_t(v.get_int64().value_unsafe());
  } else {
    return Error{"created_at must be a non-negative integer"};
  }

  if (obj["kind"].get(v)) return missing("kind");
  int64_t kind = -1;
  if (v.type() == element_type::INT64) kind = v.get_int64().value_unsafe();
  if (kind < 0 || kind > 65535) return Error{"kind must be an integer between 0 and 65535"};
  e.kind = uint16_t(kind);

  if (obj["tags"].get(v)) return missing("tags");
  if (Status s = read_tags(v, &e.tags); !s) return Error{s.error()};

  if (obj["content"].get(v)) return missing("content");
  std::string_view content;
  if (v.get(content)) return Error{"content must be a string"};
  e.content = content;
  e.raw = raw;
  return e;
}

Result<Event> parse_event_json(std::string_view json) {
  thread_local simdjson::dom::parser parser;
  element root;
  if (auto err = parser.parse(json.data(), json.size()).get(root)) {
    return Error{std::string("JSON parse error: ") + simdjson::error_message(err)};
  }
  return parse_event(root, json);
}

}  // namespace buzz::engine
