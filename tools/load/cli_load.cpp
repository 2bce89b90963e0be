#include "tools/load/cli_load.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "tools/client/child_process.h"
#include "tools/load/load_client.h"

namespace buzz::load {
namespace {

struct RunTime {
  double wall;  // seconds, spawn to reaped exit
  double cpu;   // seconds of the child's user + system time: what a loaded host does not inflate
};

// One run of `binary args…` with these environment entries, none of ours
// that start BUZZ_.
RunTime timed_run(std::vector<std::string> args, const client::Environment& env) {
  // The answer goes to /dev/null: this times the CLI, not a terminal.
  const double t0 = now_s();
  std::string error;
  const pid_t pid = client::start_child({.args = args, .drop_prefix = "BUZZ_", .env = env, .stdout_path = "/dev/null"}, &error);
  if (pid < 0) throw std::runtime_error(error);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const double took = now_s() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("buzz " + args[1] + " failed");
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return {took, seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

}  // namespace

std::map<std::string, double> run_cli_load(const ServerProcess& server, const std::string& binary, int runs) {
  engine::Keypair agent = engine::generate_keypair();
  const std::string channel = channel_uuid(0);
  auto ws = connect_authed(server, agent);
  send_all(*ws, {"[\"EVENT\"," + note(agent, "", {{"h", channel}, {"name", "cli"}}, kind::kCreateGroup).raw + "]"});
  const std::pair<std::string, std::string> relay = {"BUZZ_RELAY_URL", "http://127.0.0.1:" + std::to_string(server.port())};
  const std::pair<std::string, std::string> key = {"BUZZ_PRIVATE_KEY", engine::to_hex(agent.secret)};
  const std::pair<std::string, std::string> token = {"BUZZ_API_TOKEN", mint_bearer(server, agent, "messages:write").substr(7)};  // drop "Bearer "

  std::map<std::string, double> figures;
  auto measure = [&](const char* mode, const client::Environment& env) {
    std::vector<double> took, cpu;
    for (int i = 0; i < runs; ++i) {
      std::vector<std::string> args = {binary, "send-message", "--channel", channel, "--content", "cli load " + std::to_string(i)};
      if (std::string_view(mode) == "start_only") args = {binary, "version"};
      const RunTime t = timed_run(std::move(args), env);
      took.push_back(t.wall);
      cpu.push_back(t.cpu);
    }
    std::sort(took.begin(), took.end());
    std::sort(cpu.begin(), cpu.end());
    figures[std::string(mode) + "_p50_ms"] = percentile_ms(took, 0.50);
    figures[std::string(mode) + "_p90_ms"] = percentile_ms(took, 0.90);
    figures[std::string(mode) + "_p99_ms"] = percentile_ms(took, 0.99);
    figures[std::string(mode) + "_cpu_p50_ms"] = percentile_ms(cpu, 0.50);
  };
  measure("start_only", {});  // `buzz version`: what loading the binary costs, for comparison
  measure("token", {relay, key, token});
  measure("key_only", {relay, key});
  figures["runs_per_mode"] = runs;
  return figures;
}

}  // namespace buzz::load
