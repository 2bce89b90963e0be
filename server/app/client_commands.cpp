// The `buzz` commands that need none of the server's libraries: help, `buzz
// version` and the agent commands (tools/cli). Both mains run them: the small
// front binary (front_main.cpp) in a process that maps a handful of shared
// objects, and the full binary (main.cpp) as before.
#include "server/app/client_commands.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "server/app/cli.h"
#include "tools/cli/agent_cli.h"

namespace buzz::server {
namespace {

constexpr const char* kUsage = R"(buzz — a team-communication relay on Nostr

Usage: buzz <command> [options]

Commands:
  serve      run the relay (WebSocket + HTTP) on the embedded store
  admin      manage relay membership and keys offline (add-member, remove-member,
             list-members, generate-key, mint-token, reconcile-channels)
  audit      check the hash-chained audit log (verify, tail, head); read-only
  reindex    rebuild the full-text search index from the stored events (offline)
  sync       bring a relay up to date with another over NIP-77 (an edge appliance)
  migrate    export to / import from PostgreSQL, NIP-01 JSON lines, Typesense (offline)
  backup     copy the data directory at one point in time, while the relay serves or not;
             `backup verify DIR` checks a backup
  restore    make a new data directory from a backup
  mcp        serve the agent commands as MCP tools on stdio (buzz mcp --help)
  proxy      serve the team's channels to standard NIP-28 clients (buzz proxy --help)
  acp        run ACP agents (goose, codex-acp, …) as members of the team (buzz acp --help)
  version    print the version (--json: with the data format, and a directory's with --data-dir)
  help       show this help

Agent commands (talk to a relay over HTTP; JSON on stdout, errors as JSON on stderr;
auth from BUZZ_API_TOKEN, BUZZ_PRIVATE_KEY or BUZZ_PUBKEY, relay from BUZZ_RELAY_URL):
)";

constexpr const char* kUsageTail = R"(
Run 'buzz <command> --help' for a command's options.
)";

void print_usage(FILE* out) {
  std::fputs(kUsage, out);
  std::fputs(buzz::cli::agent_command_list().c_str(), out);
  std::fputs(kUsageTail, out);
}

}  // namespace

std::optional<int> run_client_command(int argc, char** argv, DataFormatReader read_format) {
  if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) return run_version(argc, argv, read_format);
  if (buzz::cli::is_agent_cli(argc, argv)) return buzz::cli::run_agent_cli(argc, argv);
  return std::nullopt;
}

int unknown_command(const char* name) {
  std::fprintf(stderr, "buzz: unknown command '%s'\n\n", name);
  print_usage(stderr);
  return kExitUsage;
}

}  // namespace buzz::server
