// buzz-load acp; see acp_load.h.
#include "tools/load/acp_load.h"

#include <fcntl.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "engine/clock.h"
#include "engine/hex.h"
#include "engine/json_rpc.h"
#include "engine/kind_numbers.h"
#include "tools/client/child_process.h"
#include "tools/load/load_client.h"

namespace buzz::load {
namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The value of "id" in an EVENT message's event object.
std::string event_id_of(const std::string& msg) {
  const size_t at = msg.find("\"id\":\"");
  return at == std::string::npos ? "" : msg.substr(at + 6, 64);
}

// Prompt arrivals written by the agents: event id → steady ns.
std::unordered_map<std::string, int64_t> read_arrivals(const std::string& log) {
  std::unordered_map<std::string, int64_t> out;
  std::ifstream in(log);
  std::string id;
  int64_t ns;
  while (in >> id >> ns) out.emplace(id, ns);
  return out;
}

}  // namespace

int run_acp_bench_agent(int argc, char** argv) {
  if (argc < 4) return 2;
  const int log = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int work_ms = std::atoi(argv[3]);
  simdjson::dom::parser parser;
  int sessions = 0;
  for (std::string line; std::getline(std::cin, line);) {
    simdjson::dom::element msg;
    std::string_view method;
    int64_t id = 0;
    if (parser.parse(line).get(msg) || msg["method"].get(method) || msg["id"].get(id)) continue;
    std::string result = "{}";
    if (method == "initialize") {
      result = R"({"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"buzz-load","version":"1"}})";
    } else if (method == "session/new") {
      result = R"({"sessionId":"s)" + std::to_string(++sessions) + "\"}";
    } else if (method == "session/prompt") {
      const int64_t arrived = steady_ns();
      std::string_view text;
      if (!msg["params"]["prompt"].at(0)["text"].get(text)) {
        const size_t at = text.rfind("Event ID: ");
        if (at != std::string_view::npos) {
          const std::string row = std::string(text.substr(at + 10, 64)) + " " + std::to_string(arrived) + "\n";
          (void)!write(log, row.data(), row.size());
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(work_ms));
      result = R"({"stopReason":"end_turn"})";
    }
    std::cout << engine::jsonrpc_result(std::to_string(id), result) << "\n" << std::flush;
  }
  return 0;
}

std::map<std::string, double> run_acp_load(const ServerProcess& server, const AcpLoadOptions& o) {
  const engine::Keypair person = engine::generate_keypair(), agent = engine::generate_keypair();
  const std::string agent_hex = engine::to_hex(agent.pubkey);
  auto ws = connect_authed(server, person);
  std::vector<std::string> channels, setup;
  for (int i = 0; i < o.agents; ++i) {
    channels.push_back(channel_uuid(i));
    setup.push_back(
        "[\"EVENT\"," +
        note(person, "", {{"h", channels[i]}, {"name", "acp-" + std::to_string(i)}}, kind::kCreateGroup).raw + "]");
    setup.push_back("[\"EVENT\"," + note(person, "", {{"h", channels[i]}, {"p", agent_hex}}, kind::kPutUser).raw + "]");
  }
  send_all(*ws, setup);

  const std::string log = "/tmp/buzz-load-acp-" + std::to_string(getpid()) + ".log";
  unlink(log.c_str());
  std::vector<std::string> args = {o.buzz_binary, "acp", "--agent-command", o.self_binary, "--agent-args",
                                   "acp-agent," + log + "," + std::to_string(o.work_ms), "--agents",
                                   std::to_string(o.agents), "--respond-to", "anyone", "--mcp-command", ""};
  std::string error;
  const pid_t harness = client::start_child({.args = args,
                                             .drop_prefix = "BUZZ_",
                                             .env = {{"BUZZ_RELAY_URL", server.url()}, {"BUZZ_PRIVATE_KEY", engine::to_hex(agent.secret)}},
                                             .stderr_path = "/dev/null"},
                                            &error);
  if (harness < 0) throw std::runtime_error(error);
  struct Stop {
    pid_t pid;
    ~Stop() {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  } stop{harness};

  // The floor: a plain subscriber to the same channels.
  auto sub = connect_authed(server, person);
  // One REQ per channel, as clients subscribe.
  for (size_t i = 0; i < channels.size(); ++i) {
    sub->send_text("[\"REQ\",\"floor-" + std::to_string(i) + "\",{\"kinds\":[9],\"#h\":[\"" + channels[i] +
                   "\"],\"since\":" + std::to_string(engine::unix_now()) + "}]");
  }
  std::mutex mu;
  std::unordered_map<std::string, int64_t> delivered;
  std::atomic<bool> reading{true};
  std::thread reader([&] {
    while (reading) {
      auto msg = sub->recv(100);
      if (!msg || !msg->starts_with("[\"EVENT\"")) continue;
      const int64_t at = steady_ns();
      std::lock_guard lock(mu);
      delivered.emplace(event_id_of(*msg), at);
    }
  });

  auto mention = [&](int channel, const std::string& text) {
    return note(person, text, {{"h", channels[size_t(channel)]}, {"p", agent_hex}}, 9);
  };
  // Warm-up: a mention a second until the harness is listening, then each
  // channel once, so every agent has its session before the measured run.
  bool ready = false;
  for (int attempt = 0; attempt < 15 && !ready; ++attempt) {
    send_all(*ws, {"[\"EVENT\"," + mention(0, "ping").raw + "]"});
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ready = !read_arrivals(log).empty();
  }
  if (!ready) throw std::runtime_error("buzz acp delivered no prompt within 15 s");
  for (int i = 0; i < o.agents; ++i) send_all(*ws, {"[\"EVENT\"," + mention(i, "warm-up").raw + "]"});
  std::this_thread::sleep_for(std::chrono::milliseconds(o.work_ms * 2 + 1000));

  // The measured run: channel i gets a mention every period, its phase offset
  // by i/agents of a period, so the pool stays busy throughout.
  const double period = (o.work_ms + 100) / 1000.0;
  std::vector<std::pair<std::string, int64_t>> sent;
  const double start = now_s() + 0.1;
  for (int r = 0; r < o.rounds; ++r) {
    for (int i = 0; i < o.agents; ++i) {
      sleep_until_s(start + r * period + i * period / o.agents);
      engine::Event e = mention(i, "round " + std::to_string(r));
      sent.emplace_back(e.id_hex(), steady_ns());
      send_all(*ws, {"[\"EVENT\"," + e.raw + "]"});
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(o.work_ms + 2000));
  reading = false;
  reader.join();

  const auto arrivals = read_arrivals(log);
  std::vector<double> prompt, floor;
  size_t lost = 0;
  for (const auto& [id, at] : sent) {
    auto p = arrivals.find(id);
    if (p == arrivals.end()) {
      ++lost;
      continue;
    }
    prompt.push_back(double(p->second - at) / 1e9);
    if (auto d = delivered.find(id); d != delivered.end()) floor.push_back(double(d->second - at) / 1e9);
  }
  unlink(log.c_str());
  std::sort(prompt.begin(), prompt.end());
  std::sort(floor.begin(), floor.end());
  return {{"agents", double(o.agents)},
          {"mentions", double(sent.size())},
          {"lost", double(lost)},
          {"agent_busy_pct", 100.0 * o.work_ms / (o.work_ms + 100)},
          {"prompt_p50_ms", percentile_ms(prompt, 0.50)},
          {"prompt_p90_ms", percentile_ms(prompt, 0.90)},
          {"prompt_p99_ms", percentile_ms(prompt, 0.99)},
          {"prompt_max_ms", prompt.empty() ? 0 : prompt.back() * 1000},
          {"floor_relay_delivery_p50_ms", percentile_ms(floor, 0.50)},
          {"floor_relay_delivery_p99_ms", percentile_ms(floor, 0.99)}};
}

}  // namespace buzz::load
