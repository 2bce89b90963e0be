#include "tools/cli/agent_cli.h"

#include <cctype>
#include <cstdio>
#include <deque>
#include <string_view>
#include <vector>

#include "tools/cli/cli_error.h"
#include "tools/cli/command.h"
#include "tools/cli/session.h"

namespace buzz::cli {
namespace {

constexpr const char* kGlobalHelpTail = R"(
Output: the relay's JSON body on stdout. Errors: one line on stderr,
{"error":"<category>","message":"..."}; exit 1 user_error, 2 relay_error or
network_error, 3 auth_error or key_error, 4 error.
)";

// A command's rows of the option table, each adding what it reads to args.
// The placeholders (<CHANNEL>) live as long as the rows.
struct CommandLine {
  Args args;
  std::deque<std::string> placeholders;
  std::vector<options::Option> rows;

  explicit CommandLine(const Command& c) {
    for (const Flag& f : c.flags) {
      std::string& p = placeholders.emplace_back(f.name);
      for (char& ch : p) ch = ch == '-' ? '_' : char(std::toupper(uint8_t(ch)));
      p = "<" + p + ">";
      rows.push_back({.name = f.name, .value = f.kind == Flag::kSwitch ? nullptr : p.c_str(), .help = f.help,
                      .parse = [this, name = std::string(f.name)](const std::string& v) {
                        args.add(name, v);
                        return std::string();
                      },
                      .required = f.required, .repeatable = f.kind == Flag::kRepeated});
    }
  }
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;
};

void print_help(const Command& c, const std::vector<options::Option>& rows, const std::vector<options::Option>& globals) {
  std::string usage = "buzz " + std::string(c.name) + " [OPTIONS]";
  for (const options::Option& o : rows) {
    if (o.required) usage += " --" + std::string(o.name) + " " + o.value;
  }
  std::string own = options::help(rows);
  if (!own.empty()) own = "Options:\n" + own + "\n";
  std::printf("%s\n\nUsage: %s\n\n%sGlobal options (before or after the command):\n%s%s", c.summary, usage.c_str(),
              own.c_str(), options::help(globals).c_str(), kGlobalHelpTail);
}

}  // namespace

bool is_agent_cli(int argc, char** argv) {
  if (argc < 2) return false;
  std::string_view first = argv[1];
  if (find_command(first)) return true;
  GlobalOptions probe;
  for (const options::Option& o : global_options(&probe)) {
    if (first.starts_with("--") && first.substr(2, first.find('=') - 2) == o.name) return true;
  }
  return false;
}

std::string agent_command_list() {
  std::string out;
  for (const Command& c : all_commands()) {
    std::string name = c.name;
    out += "  " + name + std::string(name.size() < 24 ? 24 - name.size() : 1, ' ') + c.summary + "\n";
  }
  return out;
}

int run_agent_cli(int argc, char** argv) {
  try {
    GlobalOptions g;
    const std::vector<options::Option> globals = global_options(&g);
    // Global flags may come before the command.
    const options::Parsed before = options::parse(globals, argc, argv, 1, {.stop_at_positional = true, .help = false});
    if (!before.ok()) throw CliError(Category::kUser, before.error);
    const int i = before.next;
    if (i >= argc) throw CliError(Category::kUser, "a command is required (see buzz --help)");
    const Command* c = find_command(argv[i]);
    if (!c) throw CliError(Category::kUser, "unrecognized subcommand '" + std::string(argv[i]) + "'");
    CommandLine line(*c);
    std::vector<options::Option> rows = line.rows;
    rows.insert(rows.end(), globals.begin(), globals.end());
    options::Parsed parsed = options::parse(rows, argc, argv, i + 1, {.version = true});
    if (parsed.outcome == options::Parsed::Outcome::kHelp) {
      print_help(*c, line.rows, globals);
      return 0;
    }
    if (parsed.outcome == options::Parsed::Outcome::kVersion) {
      std::printf("buzz %s\n", BUZZ_VERSION);
      return 0;
    }
    if (!parsed.ok()) throw CliError(Category::kUser, parsed.error);
    // A command's own flag may share a global's name (approve-step --token): the
    // command's row, first in the table, took it, and the global keeps its variable.
    for (const options::Option& o : line.rows) parsed.given.erase(o.name);
    parsed.given.insert(before.given.begin(), before.given.end());
    if (std::string refused = options::apply_environment(globals, parsed); !refused.empty()) {
      throw CliError(Category::kUser, refused);
    }
    Session session(g, c->needs_auth);
    const std::string out = c->run(session, line.args) + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  } catch (const CliError& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report(CliError(Category::kOther, e.what()));
  }
}

}  // namespace buzz::cli
