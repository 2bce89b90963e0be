#include "tools/load/cli_load.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>

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
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(args.back() + " failed");
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return {took, seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

// The plain C `main` built beside this program (buzz-load-floor).
std::string floor_binary() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string path(self, n > 0 ? size_t(n) : 0);
  return path.substr(0, path.rfind('/') + 1) + "buzz-load-floor";
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

  // The modes take turns, run by run, so a machine that other work loads
  // for a while weighs on each alike; the floor is the plain C `main`.
  struct Mode {
    const char* name;
    client::Environment env;
    std::vector<double> took{}, cpu{};
  };
  std::vector<Mode> modes = {{"floor", {}}, {"start_only", {}}, {"token", {relay, key, token}}, {"key_only", {relay, key}}};
  const std::string empty_main = floor_binary();
  for (int i = 0; i < runs; ++i) {
    for (Mode& m : modes) {
      std::vector<std::string> args = {binary, "send-message", "--channel", channel, "--content", "cli load " + std::to_string(i)};
      if (std::string_view(m.name) == "floor") args = {empty_main};
      if (std::string_view(m.name) == "start_only") args = {binary, "version"};  // what starting the binary costs
      const RunTime t = timed_run(std::move(args), m.env);
      m.took.push_back(t.wall);
      m.cpu.push_back(t.cpu);
    }
  }
  std::map<std::string, double> figures;
  for (Mode& m : modes) {
    std::sort(m.took.begin(), m.took.end());
    std::sort(m.cpu.begin(), m.cpu.end());
    const std::string name = m.name;
    figures[name + "_p50_ms"] = percentile_ms(m.took, 0.50);
    figures[name + "_p90_ms"] = percentile_ms(m.took, 0.90);
    figures[name + "_p99_ms"] = percentile_ms(m.took, 0.99);
    figures[name + "_cpu_p50_ms"] = percentile_ms(m.cpu, 0.50);
  }
  for (const char* name : {"start_only", "token", "key_only"}) {
    figures[std::string(name) + "_cpu_p50_x_floor"] = figures[std::string(name) + "_cpu_p50_ms"] / figures["floor_cpu_p50_ms"];
  }
  figures["runs_per_mode"] = runs;
  return figures;
}

}  // namespace buzz::load
