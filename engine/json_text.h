// Small JSON writers for every body built by hand: relay-signed event contents, REST
// bodies, CLI and agent-tool output, export files. Objects come out with their keys in
// lexicographic order, as upstream's JSON library writes them. An event's canonical
// serialisation (its id) is not built here but in canonical.h, whose string escaping
// these share. In namespace buzz so that every layer calls them unqualified.
#pragma once

#include <cstdint>
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

}  // namespace buzz
