#include "tools/cli/agent_cli.h"

#include <cstdio>
#include <cstring>
#include <string_view>

#include "tools/cli/cli_error.h"
#include "tools/cli/command.h"
#include "tools/cli/session.h"

namespace buzz::cli {
namespace {

// Sets a global flag; false if name is not one.
bool set_global(GlobalOptions& g, std::string_view name, const std::string& value) {
  if (name == "relay") g.relay = value;
  else if (name == "token") g.token = value;
  else if (name == "private-key") g.private_key = value;
  else if (name == "pubkey") g.pubkey = value;
  else return false;
  return true;
}

std::string placeholder(const char* flag) {
  std::string p = flag;
  for (char& c : p) c = c == '-' ? '_' : char(std::toupper(uint8_t(c)));
  return "<" + p + ">";
}

constexpr const char* kGlobalHelp = R"(Global options (before or after the command):
  --relay <URL>      relay URL; ws:// and wss:// become http:// and https://
                     [env: BUZZ_RELAY_URL] [default: http://localhost:3000]
  --token <TOKEN>    API token, sent as Authorization: Bearer [env: BUZZ_API_TOKEN]
  --pubkey <HEX>     dev mode: X-Pubkey, for relays that accept it [env: BUZZ_PUBKEY]
  BUZZ_PRIVATE_KEY   secret key, 64 hex or nsec1…: signs every write, and without a token
                     mints a 1-day one (also --private-key)

Output: the relay's JSON body on stdout. Errors: one line on stderr,
{"error":"<category>","message":"..."}; exit 1 user_error, 2 relay_error or
network_error, 3 auth_error or key_error, 4 error.
)";

void print_help(const Command& c) {
  std::string usage = "buzz " + std::string(c.name) + " [OPTIONS]";
  std::string options;
  for (const Flag& f : c.flags) {
    std::string left = "--" + std::string(f.name) + (f.kind == Flag::kSwitch ? "" : " " + placeholder(f.name));
    if (f.required) usage += " " + left;
    std::string note = f.help;
    if (f.required) note += " (required)";
    if (f.kind == Flag::kRepeated) note += " (repeatable)";
    options += "  " + left + std::string(left.size() < 28 ? 28 - left.size() : 1, ' ') + note + "\n";
  }
  if (!options.empty()) options = "Options:\n" + options + "\n";
  std::printf("%s\n\nUsage: %s\n\n%s%s", c.summary, usage.c_str(), options.c_str(), kGlobalHelp);
}

std::string missing_required(const Command& c, const Args& args) {
  std::string missing;
  for (const Flag& f : c.flags) {
    if (f.required && !args.has(f.name)) missing += "\n  --" + std::string(f.name) + " " + placeholder(f.name);
  }
  return missing;
}

// Parses argv[first..] for command c into args and g.
void parse_command_line(const Command& c, int argc, char** argv, int first, Args& args, GlobalOptions& g) {
  for (int i = first; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!arg.starts_with("--") || arg.size() == 2) {
      throw CliError(Category::kUser, "unexpected argument '" + std::string(arg) + "' found");
    }
    arg.remove_prefix(2);
    std::string name(arg.substr(0, arg.find('=')));
    std::optional<std::string> inline_value;
    if (arg.find('=') != std::string_view::npos) inline_value = std::string(arg.substr(arg.find('=') + 1));
    const Flag* flag = nullptr;
    for (const Flag& f : c.flags) {
      if (name == f.name) flag = &f;
    }
    if (flag && flag->kind == Flag::kSwitch) {
      if (inline_value) throw CliError(Category::kUser, "unexpected value '" + *inline_value + "' for '--" + name + "' found");
      args.add(name, "true");
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) {
        throw CliError(Category::kUser, "a value is required for '--" + name + " " + placeholder(name.c_str()) +
                                            "' but none was supplied");
      }
      inline_value = argv[++i];
    }
    if (flag) {
      if (flag->kind == Flag::kValue && args.has(name)) {
        throw CliError(Category::kUser, "the argument '--" + name + "' cannot be used multiple times");
      }
      args.add(name, *inline_value);
    } else if (!set_global(g, name, *inline_value)) {
      throw CliError(Category::kUser, "unexpected argument '--" + name + "' found");
    }
  }
  if (std::string missing = missing_required(c, args); !missing.empty()) {
    throw CliError(Category::kUser, "the following required arguments were not provided:" + missing);
  }
}

}  // namespace

bool is_agent_cli(int argc, char** argv) {
  if (argc < 2) return false;
  std::string_view first = argv[1];
  GlobalOptions probe;
  return find_command(first) || (first.starts_with("--") && set_global(probe, first.substr(2, first.find('=') - 2), ""));
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
    int i = 1;
    // Global flags may come before the command.
    for (; i < argc && std::string_view(argv[i]).starts_with("--"); ++i) {
      const std::string_view arg = argv[i] + 2, name = arg.substr(0, arg.find('='));
      if (!set_global(g, name, "")) throw CliError(Category::kUser, "unexpected argument '" + std::string(argv[i]) + "' found");
      if (name.size() < arg.size()) set_global(g, name, std::string(arg.substr(name.size() + 1)));
      else if (i + 1 < argc) set_global(g, name, argv[++i]);
      else throw CliError(Category::kUser, "a value is required for '" + std::string(argv[i]) + "' but none was supplied");
    }
    if (i >= argc) throw CliError(Category::kUser, "a command is required (see buzz --help)");
    const Command* c = find_command(argv[i]);
    if (!c) throw CliError(Category::kUser, "unrecognized subcommand '" + std::string(argv[i]) + "'");
    for (int k = i + 1; k < argc; ++k) {
      if (!std::strcmp(argv[k], "--help") || !std::strcmp(argv[k], "-h")) {
        print_help(*c);
        return 0;
      }
      if (!std::strcmp(argv[k], "--version") || !std::strcmp(argv[k], "-V")) {
        std::printf("buzz %s\n", BUZZ_VERSION);
        return 0;
      }
    }
    Args args;
    parse_command_line(*c, argc, argv, i + 1, args, g);
    g.fill_from_environment();
    Session session(g, c->needs_auth);
    const std::string out = c->run(session, args) + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
  } catch (const CliError& e) {
    return report(e);
  } catch (const std::exception& e) {
    return report(CliError(Category::kOther, e.what()));
  }
}

}  // namespace buzz::cli
