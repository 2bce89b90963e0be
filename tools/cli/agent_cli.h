// `buzz <command>`: the agent-first CLI of docs/reference/agents-and-cli.md Part B. Parses
// the global flags and the command's own, resolves auth, runs the command
// and prints the relay's body raw on stdout; a failure is one JSON line on
// stderr and the exit code of its category (cli_error.h).
#pragma once

#include <string>

namespace buzz::cli {

// True if argv[1] starts an agent CLI run: one of its commands, or a global
// flag written before the command (`buzz --relay URL send-message …`).
bool is_agent_cli(int argc, char** argv);
int run_agent_cli(int argc, char** argv);

// The command list with a line each, for `buzz --help`.
std::string agent_command_list();

}  // namespace buzz::cli
