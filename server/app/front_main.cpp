// buzz: the command an operator or an agent types. Help, `buzz version` and
// the agent commands (`buzz send-message …`, client_commands.h) run here, in a
// process that maps libc, libstdc++ and simdjson and little else (an agent
// command loads libsecp256k1 on first use, front_libraries.cpp, and hashes
// with its own SHA-256, front_sha256.cpp);
// every other command (serve, admin, migrate, mcp, …) replaces this
// process with the full binary (main.cpp), which links the server's ~50
// shared libraries. An agent that calls the CLI per reply pays the loading of
// those for no use (docs/building.md, "One command, two binaries").
//
// The full binary is found beside this one: lib/buzz/buzz below the prefix
// once installed (/usr/bin/buzz → /usr/lib/buzz/buzz), libexec/buzz in a build
// directory. exec keeps the process id, so a service manager or a test that
// started `buzz serve` holds the relay itself.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>

#include "server/app/cli.h"
#include "server/app/client_commands.h"

namespace {

std::string full_binary() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return {};
  const std::string path(self, size_t(n));
  const std::string dir = path.substr(0, path.rfind('/'));
  for (const char* relative : {"/../lib/buzz/buzz", "/libexec/buzz"}) {
    std::string candidate = dir + relative;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace buzz::server;
  if (auto code = run_client_command(argc, argv, nullptr)) return *code;
  const std::string full = full_binary();
  if (full.empty()) {
    std::fprintf(stderr, "buzz: '%s' needs the full binary, which is not installed beside this one (lib/buzz/buzz)\n", argv[1]);
    return kExitFailure;
  }
  execv(full.c_str(), argv);
  std::fprintf(stderr, "buzz: cannot run %s: %s\n", full.c_str(), std::strerror(errno));
  return kExitFailure;
}
