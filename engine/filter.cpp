// NIP-01 filters; see filter.h.
#include "engine/filter.h"

#include <algorithm>
#include <cstring>

#include "engine/signature.h"

namespace buzz::engine {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

template <class T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

template <size_t N>
bool contains_bytes(const std::vector<std::array<uint8_t, N>>& sorted, const uint8_t* key) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), key, [](const std::array<uint8_t, N>& a, const uint8_t* k) {
    return std::memcmp(a.data(), k, N) < 0;
  });
  return it != sorted.end() && std::memcmp(it->data(), key, N) == 0;
}

bool contains_value(const std::vector<std::string>& sorted, std::string_view v) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), v);
  return it != sorted.end() && *it == v;
}

Status read_uint(element v, const char* field, uint64_t* out) {
  if (v.type() == element_type::UINT64) {
    *out = v.get_uint64().value_unsafe();
  } else if (v.type() == element_type::INT64 && v.get_int64().value_unsafe() >= 0) {
    *out = uint64_t(v.get_int64().value_unsafe());
  } else {
    return Error{std::string(field) + " must be a non-negative integer"};
  }
  return {};
}

template <size_t N>
Status read_hex_list(element v, const char* field, std::vector<std::array<uint8_t, N>>* out) {
  simdjson::dom::array arr;
  if (v.get(arr)) return Error{std::string(field) + " must be an array of strings"};
  out->reserve(arr.size());
  for (element item : arr) {
    std::string_view s;
    std::array<uint8_t, N> bytes;
    if (item.get(s) || !from_hex(s, &bytes)) {
      return Error{std::string(field) + " must hold " + std::to_string(2 * N) + "-character lowercase hex values"};
    }
    out->push_back(bytes);
  }
  return {};
}

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

bool Filter::matches(const EventFields& e) const {
  if (kinds && !std::binary_search(kinds->begin(), kinds->end(), e.kind)) return false;
  if (since && e.created_at < *since) return false;
  if (until && e.created_at > *until) return false;
  if (ids && !contains_bytes(*ids, e.id)) return false;
  if (authors && !contains_bytes(*authors, e.pubkey)) return false;
  for (const TagFilter& tf : tags) {
    // #h names the channel an event is stored in (docs/reference/protocol.md §9.4), never
    // merely an h tag: an event may carry several, or be stored globally
    // with one, and must not show up in a channel it was not admitted to.
    if (tf.name == 'h') {
      if (e.channel.empty() || !contains_value(tf.values, e.channel)) return false;
      continue;
    }
    bool found = false;
    for (const TagRef& t : e.tags) {
      if (t.name == tf.name && contains_value(tf.values, t.value)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

bool Filter::matches_nothing() const {
  if ((ids && ids->empty()) || (authors && authors->empty()) || (kinds && kinds->empty())) return true;
  if (since && until && *since > *until) return true;
  return std::any_of(tags.begin(), tags.end(), [](const TagFilter& t) { return t.values.empty(); });
}

const TagFilter* Filter::tag(char name) const {
  for (const TagFilter& t : tags) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

size_t Filter::value_count() const {
  size_t n = 1 + (ids ? ids->size() : 0) + (authors ? authors->size() : 0) + (kinds ? kinds->size() : 0);
  for (const TagFilter& t : tags) n += t.values.size();
  return n;
}

bool Filter::has_kind(uint16_t kind) const {
  return !kinds || std::binary_search(kinds->begin(), kinds->end(), kind);
}

Result<Filter> parse_filter(element value) {
  simdjson::dom::object obj;
  if (value.get(obj)) return Error{"filter must be a JSON object"};
  Filter f;
  for (auto [key, v] : obj) {
    if (key == "ids") {
      f.ids.emplace();
      if (Status s = read_hex_list(v, "ids", &*f.ids); !s) return Error{s.error()};
    } else if (key == "authors") {
      f.authors.emplace();
      if (Status s = read_hex_list(v, "authors", &*f.authors); !s) return Error{s.error()};
      for (const Pubkey& pk : *f.authors) {
        if (!is_valid_pubkey(pk)) return Error{"authors must hold valid public keys, got " + to_hex(pk)};
      }
    } else if (key == "kinds") {
      simdjson::dom::array arr;
      if (v.get(arr)) return Error{"kinds must be an array of integers"};
      f.kinds.emplace();
      for (element k : arr) {
        uint64_t kind;
        if (!read_uint(k, "kinds", &kind) || kind > 65535) return Error{"kinds must hold integers between 0 and 65535"};
        f.kinds->push_back(uint16_t(kind));
      }
    } else if (key == "since" || key == "until" || key == "limit") {
      uint64_t n;
      if (Status s = read_uint(v, std::string(key).c_str(), &n); !s) return Error{s.error()};
      (key == "since" ? f.since : key == "until" ? f.until : f.limit) = n;
    } else if (key == "search") {
      std::string_view s;
      if (v.get(s)) return Error{"search must be a string"};
      f.search = std::string(s);
    } else if (key.size() == 2 && key[0] == '#') {
      if (!is_ascii_letter(key[1])) return Error{"tag filter keys must be # followed by one letter, got " + std::string(key)};
      simdjson::dom::array arr;
      if (v.get(arr)) return Error{std::string(key) + " must be an array of strings"};
      TagFilter tf{key[1], {}};
      for (element item : arr) {
        std::string_view s;
        if (item.get(s)) return Error{std::string(key) + " must be an array of strings"};
        tf.values.emplace_back(s);
      }
      f.tags.push_back(std::move(tf));
    }
    // Longer #keys and unknown keys are ignored, as NIP-01 clients expect.
  }
  f.normalize();
  return f;
}

void Filter::normalize() {
  if (ids) sort_unique(*ids);
  if (authors) sort_unique(*authors);
  if (kinds) sort_unique(*kinds);
  for (TagFilter& t : tags) sort_unique(t.values);
  std::stable_sort(tags.begin(), tags.end(), [](const TagFilter& a, const TagFilter& b) { return a.name < b.name; });
}

Result<Filter> parse_filter_json(std::string_view json) {
  thread_local simdjson::dom::parser parser;
  element root;
  if (auto err = parser.parse(json.data(), json.size()).get(root)) {
    return Error{std::string("JSON parse error: ") + simdjson::error_message(err)};
  }
  return parse_filter(root);
}

}  // namespace buzz::engine
