// The agent CLI's error categories (docs/reference/agents-and-cli.md §B.1): each failure is
// one JSON line on stderr, {"error":"<category>","message":"<text>"}, and the
// category decides the exit code, so an agent can branch on either.
#pragma once

#include <stdexcept>
#include <string>

namespace buzz::cli {

enum class Category {
  kUser,     // user_error: bad flags or usage                  → 1
  kRelay,    // relay_error: a non-2xx other than 401/403       → 2
  kNetwork,  // network_error: connect, DNS or timeout          → 2
  kAuth,     // auth_error: 401/403, auth missing, mint failed   → 3
  kKey,      // key_error: bad or missing private key           → 3
  kOther,    // error: anything else                            → 4
};

const char* category_name(Category c);
int exit_code(Category c);

// Thrown anywhere below a command; run_agent_command turns it into the line
// on stderr and the exit code. A CLI run is one short-lived request, so
// unwinding to the top is the simplest honest control flow.
struct CliError : std::runtime_error {
  Category category;
  CliError(Category c, const std::string& message) : std::runtime_error(message), category(c) {}
};

// {"error":"<category>","message":"<text>"}: the CLI's stderr line, and the
// text of an MCP tool's isError result.
std::string error_json(const CliError& e);

// Writes the error line to stderr and returns its exit code.
int report(const CliError& e);

}  // namespace buzz::cli
