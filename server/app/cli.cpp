// The command-line plumbing of cli.h.
#include "server/app/cli.h"

#include <cstdio>

#include "engine/options.h"

namespace buzz::server {

std::optional<std::string> ParsedArgs::get(const std::string& k) const {
  auto it = options.find(k);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

int usage_error(const char* command, const char* usage, const std::string& why) {
  std::fprintf(stderr, "buzz %s: %s\n\n%s", command, why.c_str(), usage);
  return kExitUsage;
}

ParsedArgs parse_args(int argc, char** argv, int first, const std::vector<std::string>& switches,
                      const std::vector<std::string>& values) {
  ParsedArgs out;
  auto into = [&out](const std::string& name) {
    return [&out, name](const std::string& v) {
      out.options[name] = v;
      return std::string();
    };
  };
  std::vector<options::Option> rows;
  for (const std::string& s : switches) rows.push_back({.name = s.c_str(), .parse = into(s), .repeatable = true});
  for (const std::string& v : values) {
    rows.push_back({.name = v.c_str(), .value = "VALUE", .parse = into(v), .repeatable = true});
  }
  options::Parsed parsed = options::parse(rows, argc, argv, first, {.positional = true});
  if (parsed.outcome == options::Parsed::Outcome::kHelp) out.options["help"] = "true";
  out.error = std::move(parsed.error);
  out.positional = std::move(parsed.positional);
  return out;
}

}  // namespace buzz::server
