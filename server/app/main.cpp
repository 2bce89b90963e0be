// buzz: the single binary. `buzz serve` runs the relay; `buzz admin …` works
// offline on a data directory; `buzz send-message …` and the other agent
// commands talk to a relay over HTTP (tools/cli); `buzz mcp` serves them as MCP
// tools on stdio (tools/mcp); `buzz proxy` serves the channels to NIP-28
// clients (tools/proxy); `buzz acp` runs ACP agents as team members
// (tools/acp). Each subcommand answers --help.
#include <cstdio>
#include <cstring>
#include <string>

#include "server/app/cli.h"
#include "tools/acp/acp_main.h"
#include "tools/cli/agent_cli.h"
#include "tools/mcp/mcp_server.h"
#include "tools/proxy/proxy_cli.h"

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

int main(int argc, char** argv) {
  using namespace buzz::server;
  if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    print_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : kExitOk;
  }
  std::string cmd = argv[1];
  if (cmd == "serve") return run_serve(argc, argv);
  if (cmd == "admin") return run_admin(argc, argv);
  if (cmd == "audit") return run_audit(argc, argv);
  if (cmd == "reindex") return run_reindex(argc, argv);
  if (cmd == "sync") return run_sync(argc, argv);
  if (cmd == "migrate") return run_migrate(argc, argv);
  if (cmd == "backup") return run_backup(argc, argv);
  if (cmd == "restore") return run_restore(argc, argv);
  if (cmd == "mcp") return buzz::mcp::run_mcp(argc, argv);
  if (cmd == "proxy") return buzz::proxy::run_proxy(argc, argv);
  if (cmd == "acp") return buzz::acp::run_acp(argc, argv);
  if (buzz::cli::is_agent_cli(argc, argv)) return buzz::cli::run_agent_cli(argc, argv);
  if (cmd == "version" || cmd == "--version") return run_version(argc, argv);
  std::fprintf(stderr, "buzz: unknown command '%s'\n\n", cmd.c_str());
  print_usage(stderr);
  return kExitUsage;
}
