// The command-line plumbing of cli.h.
#include "server/app/cli.h"

#include <algorithm>

namespace buzz::server {

std::optional<std::string> ParsedArgs::get(const std::string& k) const {
  auto it = options.find(k);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

ParsedArgs parse_args(int argc, char** argv, int first, const std::vector<std::string>& flags) {
  ParsedArgs out;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      out.positional.push_back(a);
      continue;
    }
    std::string key = a.substr(2);
    size_t eq = key.find('=');
    if (eq != std::string::npos) {
      out.options[key.substr(0, eq)] = key.substr(eq + 1);
    } else if (std::find(flags.begin(), flags.end(), key) != flags.end()) {
      out.options[key] = "true";
    } else if (i + 1 < argc) {
      out.options[key] = argv[++i];
    } else {
      out.error = "option --" + key + " needs a value";
    }
  }
  return out;
}

}  // namespace buzz::server
