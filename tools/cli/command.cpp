#include "tools/cli/command.h"

#include <iostream>
#include <iterator>

namespace buzz::cli {

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.front();
}

const std::string& Args::value(const std::string& name) const {
  static const std::string kNone;
  auto it = values_.find(name);
  return it == values_.end() ? kNone : it->second.front();
}

std::vector<std::string> Args::all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string value_or_stdin(const std::string& value) {
  if (value != "-") return value;
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

}  // namespace buzz::cli
