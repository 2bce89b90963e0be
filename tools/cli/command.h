// One agent CLI command as the table declares it: its name, the flags it
// takes, a line of help, and the function that runs it. The handler returns
// what goes to stdout (the relay's body, or a bare token for `auth`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace buzz::cli {

class Session;

struct Flag {
  enum Kind { kValue, kSwitch, kRepeated };
  const char* name;  // without the leading dashes
  Kind kind = kValue;
  bool required = false;
  const char* help = "";
};

// A command's parsed flags: every value given, by flag name.
class Args {
 public:
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const;
  const std::string& value(const std::string& name) const;  // a required flag's value
  std::vector<std::string> all(const std::string& name) const;
  void add(const std::string& name, std::string value) { values_[name].push_back(std::move(value)); }
  // A text flag's value, or all of stdin when it is `-` and stdin is the
  // CLI's (--diff, --yaml, set-canvas --content). Under `buzz mcp` stdin
  // carries the protocol, so there `-` is just the text "-".
  std::string text(const std::string& name) const;
  void set_dash_reads_stdin(bool on) { dash_reads_stdin_ = on; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  bool dash_reads_stdin_ = true;
};

struct Command {
  const char* name;
  const char* summary;
  std::vector<Flag> flags;
  std::string (*run)(Session& session, const Args& args);
  bool needs_auth = true;  // false: `auth`, which proves itself by signing
};

// The one table of operations, served by the CLI (`buzz <command>`) and by
// the MCP server (`buzz mcp`, tools/mcp) alike.
//   all_commands():  the 48 commands of §B.2 (commands_*.cpp, by area)
//   tool_commands(): those an agent's MCP client gets as tools: all but the
//                    token commands, since the server's own credentials are
//                    its operator's business, not the model's
const std::vector<Command>& all_commands();
const std::vector<Command>& tool_commands();
const Command* find_command(std::string_view name);

std::vector<Command> message_commands();
std::vector<Command> channel_commands();
std::vector<Command> people_commands();
std::vector<Command> workflow_commands();
std::vector<Command> token_commands();

}  // namespace buzz::cli
