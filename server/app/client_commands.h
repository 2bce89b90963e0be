// The commands either `buzz` binary answers in-process without the server's
// libraries (client_commands.cpp), and the message for one neither knows.
#pragma once

#include <optional>

#include "server/app/cli.h"

namespace buzz::server {

// Help, `buzz version` and the agent commands: their exit code, or nullopt
// for a command of the full binary (serve, admin, migrate, mcp, …, and
// `version --data-dir` where `read_format` is null: run_version, cli.h).
std::optional<int> run_client_command(int argc, char** argv, DataFormatReader read_format);

// "unknown command" and the usage on stderr; the usage exit code.
int unknown_command(const char* name);

}  // namespace buzz::server
