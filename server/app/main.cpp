// buzz: the full binary. `buzz serve` runs the relay; `buzz admin …` works
// offline on a data directory; `buzz send-message …` and the other agent
// commands talk to a relay over HTTP (tools/cli); `buzz mcp` serves them as MCP
// tools on stdio (tools/mcp); `buzz proxy` serves the channels to NIP-28
// clients (tools/proxy); `buzz acp` runs ACP agents as team members
// (tools/acp). Each subcommand answers --help. The `buzz` an operator types is
// front_main.cpp, which runs the client commands itself and execs this binary
// for the rest.
#include <string>

#include "engine/data_format.h"

#include "server/app/cli.h"
#include "server/app/client_commands.h"
#include "tools/acp/acp_main.h"
#include "tools/mcp/mcp_server.h"
#include "tools/proxy/proxy_cli.h"

int main(int argc, char** argv) {
  using namespace buzz::server;
  if (auto code = run_client_command(argc, argv, buzz::engine::read_data_format)) return *code;
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
  return unknown_command(argv[1]);
}
