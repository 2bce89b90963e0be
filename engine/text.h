// ASCII text helpers shared by the rooms above engine/ (net/, which includes
// nothing of ours, keeps its own for HTTP).
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace buzz::engine {

// s with every byte through std::tolower: ASCII letters lowered, the rest as they are.
inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// s without its leading and trailing `blanks`: white space by default, " \t"
// for HTTP's optional white space.
inline std::string_view trim(std::string_view s, std::string_view blanks = " \t\r\n") {
  const size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

}  // namespace buzz::engine
