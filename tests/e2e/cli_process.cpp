#include "tests/e2e/cli_process.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/e2e/scratch_dir.h"
#include "tools/client/child_process.h"

namespace buzz::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

CliRun run_cli(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env,
               const std::string& stdin_text) {
  std::vector<std::string> args_text = {std::getenv("BUZZ_BINARY")};
  args_text.insert(args_text.end(), args.begin(), args.end());
  return run_program(std::move(args_text), env, stdin_text);
}

CliRun run_program(std::vector<std::string> args, const std::vector<std::pair<std::string, std::string>>& env,
                   const std::string& stdin_text) {
  // Files, not pipes, for the three streams: nothing can block on a full pipe.
  const ScratchDir dir("cli-run");
  const std::string in = dir / "in", out = dir / "out", err = dir / "err";
  std::ofstream(in, std::ios::binary) << stdin_text;

  CliRun run;
  std::string error;
  const pid_t pid = client::start_child(
      {.args = std::move(args), .drop_prefix = "BUZZ_", .env = env, .stdin_path = in, .stdout_path = out, .stderr_path = err},
      &error);
  if (pid > 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  run.out = slurp(out);
  run.err = slurp(err);
  if (pid < 0) run.err += error;  // it did not start: say why
  return run;
}

}  // namespace buzz::test
