// The command-line plumbing of cli.h.
#include "server/app/cli.h"

#include "engine/options.h"

namespace buzz::server {

std::optional<std::string> ParsedArgs::get(const std::string& k) const {
  auto it = options.find(k);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

int usage_error(const char* command, std::string_view usage, const std::string& why) {
  std::fprintf(stderr, "buzz %s: %s\n\n%.*s", command, why.c_str(), int(usage.size()), usage.data());
  return kExitUsage;
}

std::optional<int> without_subcommand(const char* command, const std::string& usage, const ParsedArgs& args) {
  if (!args.error.empty()) return usage_error(command, usage, args.error);
  if (!args.has("help") && !args.positional.empty()) return std::nullopt;
  std::fputs(usage.c_str(), args.has("help") ? stdout : stderr);
  return args.has("help") ? kExitOk : kExitUsage;
}

ParsedArgs parse_args(int argc, char** argv, int first, OptionRows rows) {
  ParsedArgs out;
  std::vector<options::Option> bound(rows.begin(), rows.end());
  for (options::Option& row : bound) {
    if (!row.name) continue;  // a heading
    const std::string name = row.name;
    row.last_wins = true;
    row.parse = [&out, name](const std::string& v) {
      out.options[name] = v;
      return std::string();
    };
  }
  options::Parsed parsed = options::parse(bound, argc, argv, first, {.positional = true});
  if (parsed.outcome == options::Parsed::Outcome::kHelp) out.options["help"] = "true";
  if (parsed.ok()) (void)options::apply_environment(bound, parsed);  // recording refuses nothing
  out.error = std::move(parsed.error);
  out.given = std::move(parsed.given);
  out.positional = std::move(parsed.positional);
  return out;
}

std::string usage_text(std::string_view head, OptionRows rows, std::string_view tail) {
  return std::string(head) + "\nOptions:\n" + options::help(rows) + std::string(tail);
}

}  // namespace buzz::server
