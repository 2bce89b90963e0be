// run_cli: runs `$BUZZ_BINARY <args>` as a child process the way an agent
// runs the CLI — arguments, environment and stdin given — and returns its
// exit code, stdout and stderr apart. The child's environment is the test's
// minus every BUZZ_* variable, plus `env`, so no setting leaks in.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace buzz::test {

struct CliRun {
  int status = -1;  // the exit code, -1 if it did not exit normally
  std::string out, err;
};

CliRun run_cli(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env = {},
               const std::string& stdin_text = "");

// The same for another program (buzz-load): args[0] is its path.
CliRun run_program(std::vector<std::string> args, const std::vector<std::pair<std::string, std::string>>& env = {},
                   const std::string& stdin_text = "");

}  // namespace buzz::test
