#include "tools/cli/cli_error.h"

#include <cstdio>

#include "engine/json_text.h"

namespace buzz::cli {

const char* category_name(Category c) {
  switch (c) {
    case Category::kUser: return "user_error";
    case Category::kRelay: return "relay_error";
    case Category::kNetwork: return "network_error";
    case Category::kAuth: return "auth_error";
    case Category::kKey: return "key_error";
    case Category::kOther: return "error";
  }
  return "error";
}

int exit_code(Category c) {
  switch (c) {
    case Category::kUser: return 1;
    case Category::kRelay:
    case Category::kNetwork: return 2;
    case Category::kAuth:
    case Category::kKey: return 3;
    case Category::kOther: return 4;
  }
  return 4;
}

std::string error_json(const CliError& e) {
  return json_object({{"error", json_string(category_name(e.category))}, {"message", json_string(e.what())}});
}

int report(const CliError& e) {
  std::fputs((error_json(e) + "\n").c_str(), stderr);
  return exit_code(e.category);
}

}  // namespace buzz::cli
