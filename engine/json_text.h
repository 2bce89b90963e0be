// Small JSON writers for every body built by hand: relay-signed event contents, REST
// bodies, CLI and agent-tool output, export files. json_object writes its keys in
// lexicographic order, as upstream's JSON library does; JsonFields writes them in the
// order given, for the shapes whose order is fixed elsewhere. An event's canonical
// serialisation (its id) is not built here but in canonical.h, whose string escaping
// these share. In namespace buzz so that every layer calls them unqualified.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace buzz {

// s as a JSON string literal (quoted, serde escaping).
std::string json_string(std::string_view s);

// s quoted, or null when it is empty (REST's nullable text fields).
std::string json_string_or_null(std::string_view s);

// An object from (key, value) pairs; values are JSON text (quoted where they are strings).
std::string json_object(std::vector<std::pair<std::string, std::string>> fields);

// An RFC 3339 timestamp string for unix seconds, or null for 0 ("never").
std::string json_time_or_null(uint64_t unix_seconds);

// An array of JSON texts, in order.
std::string json_array(const std::vector<std::string>& values);
// An array of strings, each quoted.
template <class Strings>
std::string json_string_array(const Strings& strings) {
  std::vector<std::string> quoted;
  for (const auto& s : strings) quoted.push_back(json_string(s));
  return json_array(quoted);
}

// An object written field by field, its keys in the order written: for the bodies
// whose order is fixed elsewhere (a hash-chained audit entry, a JSON-RPC envelope, a
// log line, an export file's rows, output that scripts and tests read byte for byte).
// Keys and string values are escaped here; `json` takes a value that is JSON already.
class JsonFields {
 public:
  JsonFields() = default;
  // Room for `capacity` bytes up front, where the body is written per event.
  explicit JsonFields(size_t capacity) { out_.reserve(capacity); }

  JsonFields& string(std::string_view key, std::string_view value);
  // null when value is empty (the nullable text fields).
  JsonFields& string_or_null(std::string_view key, std::string_view value);
  // null when value is absent.
  JsonFields& nullable(std::string_view key, const std::optional<std::string>& value) {
    return value ? string(key, *value) : json(key, "null");
  }
  JsonFields& boolean(std::string_view key, bool value) { return json(key, value ? "true" : "false"); }
  template <std::integral N>
  JsonFields& number(std::string_view key, N value) {
    static_assert(!std::same_as<N, bool>, "a bool is written by boolean()");
    char digits[24];
    const char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    return json(key, std::string_view(digits, size_t(end - digits)));
  }
  // value with `places` digits after the point (seconds, rates); null when not finite.
  JsonFields& decimal(std::string_view key, double value, int places);
  JsonFields& json(std::string_view key, std::string_view value);

  // Closes the object and hands it over; the writer is spent after.
  std::string str() {
    out_ += '}';
    return std::move(out_);
  }

 private:
  // out_ with `,"key":` written, for the value to follow.
  std::string& field(std::string_view key);
  std::string out_ = "{";
};

}  // namespace buzz
