#include "tests/e2e/cli_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

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
  // Files, not pipes, for the three streams: nothing can block on a full pipe.
  char dir_template[] = "/tmp/buzz-cli-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  const std::string in = dir + "/in", out = dir + "/out", err = dir + "/err";
  std::ofstream(in, std::ios::binary) << stdin_text;

  std::vector<std::string> argv_text = {std::getenv("BUZZ_BINARY")};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "BUZZ_", 5) != 0) env_text.emplace_back(*e);
  }
  for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
  auto pointers = [](std::vector<std::string>& v) {
    std::vector<char*> p;
    for (std::string& s : v) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
  };
  std::vector<char*> argv = pointers(argv_text), envp = pointers(env_text);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  CliRun run;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  run.out = slurp(out);
  run.err = slurp(err);
  for (const std::string& f : {in, out, err}) std::remove(f.c_str());
  rmdir(dir.c_str());
  return run;
}

}  // namespace buzz::test
