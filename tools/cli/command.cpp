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

std::string Args::text(const std::string& name) const {
  const std::string& v = value(name);
  if (v != "-" || !dash_reads_stdin_) return v;
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

namespace {

std::vector<Command> concatenated(std::initializer_list<std::vector<Command> (*)()> groups) {
  std::vector<Command> v;
  for (auto group : groups) {
    for (Command& c : group()) v.push_back(std::move(c));
  }
  return v;
}

}  // namespace

const std::vector<Command>& all_commands() {
  static const std::vector<Command> all =
      concatenated({message_commands, channel_commands, people_commands, workflow_commands, token_commands});
  return all;
}

const std::vector<Command>& tool_commands() {
  static const std::vector<Command> tools =
      concatenated({message_commands, channel_commands, people_commands, workflow_commands});
  return tools;
}

const Command* find_command(std::string_view name) {
  for (const Command& c : all_commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace buzz::cli
