// The workflow benchmarks of `buzz-load workflows`; see workflow_load.h.
#include "tools/load/workflow_load.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "tools/client/http_client.h"
#include "tools/client/relay_auth.h"
#include "tools/load/load_client.h"

namespace buzz::load {
namespace {

constexpr int kWorkflowPublishers = 8;

std::vector<std::string> open_channels(const ServerProcess& server, const engine::Keypair& owner, int n) {
  std::vector<std::string> ids, frames;
  for (int i = 0; i < n; ++i) {
    ids.push_back(channel_uuid(i));
    frames.push_back("[\"EVENT\"," +
                     note(owner, "", {{"h", ids.back()}, {"name", "wf " + std::to_string(i)}}, kind::kCreateGroup).raw +
                     "]");
  }
  send_all(*connect_authed(server, owner), frames);
  return ids;
}

void create_workflow(client::HttpClient& http, const ServerProcess& server, const engine::Keypair& owner,
                     const std::string& channel, const std::string& yaml) {
  const std::string path = "/api/channels/" + channel + "/workflows";
  const std::string body = json_object({{"yaml_definition", json_string(yaml)}});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + path;
  const client::HttpReply r = http.call("POST", path, {{"Authorization", client::nip98_authorization(owner, url, "POST", body)}}, body);
  if (r.status != 200) throw std::runtime_error("workflow not created: " + std::to_string(r.status) + " " + r.body);
}

}  // namespace

std::map<std::string, double> run_workflow_overhead(const ServerProcess& server, const WorkflowLoad& load,
                                                    bool with_workflows) {
  const engine::Keypair owner = engine::generate_keypair();
  const std::vector<std::string> channels = open_channels(server, owner, load.channels);
  if (with_workflows) {
    client::HttpClient http(server.port());
    for (int w = 0; w < load.workflows; ++w) {
      // Evaluated for every message of its channel, matched by none of them.
      create_workflow(http, server, owner, channels[size_t(w) % channels.size()],
                      "name: watch " + std::to_string(w) +
                          "\ntrigger:\n  on: message_posted\n  filter: 'str_contains(trigger_text, \"incident-" +
                          std::to_string(w) + "\") && str_len(trigger_text) > 3'\nsteps:\n  - id: ack\n"
                          "    action: send_message\n    text: \"seen {{trigger.text}}\"\n");
    }
  }
  std::vector<std::vector<std::string>> frames(kWorkflowPublishers);
  for (int i = 0; i < load.messages; ++i) {
    frames[size_t(i % kWorkflowPublishers)].push_back("[\"EVENT\"," +
                                              note(owner, "status update " + std::to_string(i),
                                                   {{"h", channels[size_t(i) % channels.size()]}}, kind::kStreamMessage)
                                                  .raw +
                                              "]");
  }
  std::vector<std::unique_ptr<client::WsClient>> conns;
  for (int p = 0; p < kWorkflowPublishers; ++p) conns.push_back(connect_authed(server, owner));
  const ProcessUsage before = read_usage(server.pid());
  std::vector<std::thread> senders;
  for (int p = 0; p < kWorkflowPublishers; ++p) senders.emplace_back([&, p] { send_all(*conns[size_t(p)], frames[size_t(p)], 50); });
  for (auto& s : senders) s.join();
  const ProcessUsage after = read_usage(server.pid());
  return {{"messages", double(load.messages)},
          {"workflows", with_workflows ? double(load.workflows) : 0.0},
          {"server_cpu_us_per_message", (after.cpu_seconds - before.cpu_seconds) * 1e6 / load.messages}};
}

std::map<std::string, double> run_workflow_latency(const ServerProcess& server, const WorkflowLoad& load) {
  const engine::Keypair owner = engine::generate_keypair();
  const std::string channel = open_channels(server, owner, 1).front();
  {
    client::HttpClient http(server.port());
    create_workflow(http, server, owner, channel,
                    "name: echo\ntrigger:\n  on: message_posted\n  filter: 'str_starts_with(trigger_text, \"ping \")'\n"
                    "steps:\n  - id: answer\n    action: send_message\n    text: \"pong {{trigger.text}}\"\n");
  }
  auto subscriber = connect_authed(server, engine::generate_keypair());
  subscriber->send_text(R"(["REQ","answers",{"kinds":[9],"#h":[")" + channel + R"("],"limit":0}])");
  if (auto eose = subscriber->recv(5000); !eose || eose->find("EOSE") == std::string::npos) {
    throw std::runtime_error("subscribe failed");
  }
  const int total = load.rate * load.seconds;
  std::vector<std::string> frames;
  for (int i = 0; i < total; ++i)
    frames.push_back("[\"EVENT\"," +
                     note(owner, "ping " + std::to_string(i), {{"h", channel}}, kind::kStreamMessage).raw + "]");
  std::vector<std::atomic<double>> sent_at(static_cast<size_t>(total));
  auto publisher = connect_authed(server, owner);
  std::thread pub([&] {
    const double start = now_s();
    for (int i = 0; i < total; ++i) {
      sleep_until_s(start + double(i) / load.rate);
      sent_at[size_t(i)].store(now_s());
      publisher->send_text(frames[size_t(i)]);
      while (publisher->recv(0)) {
      }
    }
  });
  // The answers: "pong ping N" (the pings themselves come to the subscriber too).
  std::vector<double> latencies;
  const double deadline = now_s() + load.seconds + 10;
  while (int(latencies.size()) < total && now_s() < deadline) {
    auto m = subscriber->recv(200);
    if (!m) continue;
    const size_t at = m->find("\"content\":\"pong ping ");
    if (at == std::string::npos) continue;
    const size_t i = size_t(std::atoll(m->c_str() + at + 21));
    if (i < sent_at.size()) latencies.push_back(now_s() - sent_at[i].load());
  }
  pub.join();
  std::sort(latencies.begin(), latencies.end());
  return {{"triggers", double(total)},
          {"answered", double(latencies.size())},
          {"lost", double(total - int(latencies.size()))},
          {"p50_ms", percentile_ms(latencies, 0.5)},
          {"p99_ms", percentile_ms(latencies, 0.99)}};
}

}  // namespace buzz::load
