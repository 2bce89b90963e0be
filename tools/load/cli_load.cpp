#include "tools/load/cli_load.h"

#include <sys/wait.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "engine/hex.h"
#include "tools/load/load_client.h"

namespace buzz::load {
namespace {

// One run of `binary args…` with these extra environment entries; its wall time in seconds.
double timed_run(std::vector<std::string> args, const std::vector<std::string>& env) {
  // The answer goes to /dev/null: this times the CLI, not a terminal.
  const double t0 = now_s();
  const pid_t pid = spawn_process(args, env, 1);
  int status = 0;
  waitpid(pid, &status, 0);
  const double took = now_s() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("buzz " + args[1] + " failed");
  return took;
}

}  // namespace

std::map<std::string, double> run_cli_load(const ServerProcess& server, const std::string& binary, int runs) {
  engine::Keypair agent = engine::generate_keypair();
  const std::string channel = channel_uuid(0);
  auto ws = connect_authed(server, agent);
  send_all(*ws, {"[\"EVENT\"," + note(agent, "", {{"h", channel}, {"name", "cli"}}, 9007).raw + "]"});
  const std::string relay = "BUZZ_RELAY_URL=http://127.0.0.1:" + std::to_string(server.port());
  const std::string key = "BUZZ_PRIVATE_KEY=" + engine::to_hex(agent.secret);
  const std::string token = "BUZZ_API_TOKEN=" + mint_bearer(server, agent, "messages:write").substr(7);  // drop "Bearer "

  std::map<std::string, double> figures;
  auto measure = [&](const char* mode, const std::vector<std::string>& env) {
    std::vector<double> took;
    for (int i = 0; i < runs; ++i) {
      std::vector<std::string> args = {binary, "send-message", "--channel", channel, "--content", "cli load " + std::to_string(i)};
      if (std::string_view(mode) == "start_only") args = {binary, "version"};
      took.push_back(timed_run(std::move(args), env));
    }
    std::sort(took.begin(), took.end());
    figures[std::string(mode) + "_p50_ms"] = percentile_ms(took, 0.50);
    figures[std::string(mode) + "_p90_ms"] = percentile_ms(took, 0.90);
    figures[std::string(mode) + "_p99_ms"] = percentile_ms(took, 0.99);
  };
  measure("start_only", {});  // `buzz version`: what loading the binary costs, for comparison
  measure("token", {relay, key, token});
  measure("key_only", {relay, key});
  figures["runs_per_mode"] = runs;
  return figures;
}

}  // namespace buzz::load
