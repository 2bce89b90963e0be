// The fan-out scenario; see fanout_load.h.
#include "tools/load/fanout_load.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "tools/load/fanout_floor.h"
#include "tools/load/load_client.h"
#include "tools/load/send_floor.h"

namespace buzz::load {

void run_fanout(const Options& o) {
  std::string dir = temp_dir();
  // With --pubsub, two nodes share the Redis (the child servers read REDIS_URL):
  // the subscribers are on one, the publisher on the other, so every delivery
  // crossed Redis. The figures are the subscribers' node's.
  if (!o.pubsub.empty()) setenv("REDIS_URL", o.pubsub.c_str(), 1);
  ServerProcess server(o.binary, dir, pick_port());
  std::unique_ptr<ServerProcess> other;
  if (!o.pubsub.empty()) {
    std::filesystem::create_directories(dir + "-publisher");
    other = std::make_unique<ServerProcess>(o.binary, dir + "-publisher", uint16_t(pick_port() + 1));
  }
  const ServerProcess& publishing = other ? *other : server;
  engine::Keypair pub_key = engine::generate_keypair();
  auto publisher = connect_authed(publishing, pub_key);
  // --in-channel: the messages of one open channel, whose deliveries the relay records (receipts).
  const std::string channel = o.in_channel ? channel_uuid(0) : "";
  if (o.in_channel) send_all(*publisher, {"[\"EVENT\"," + note(pub_key, "", {{"h", channel}, {"name", "fanout"}}, 9007).raw + "]"});
  const std::string req = o.in_channel ? R"(["REQ","live",{"kinds":[9],"#h":[")" + channel + R"("],"limit":0}])"
                                       : R"(["REQ","live",{"kinds":[1],"#t":["fanout"],"limit":0}])";
  std::vector<std::unique_ptr<client::WsClient>> subs;
  for (int i = 0; i < o.subscribers; ++i) {
    auto c = connect_authed(server, engine::generate_keypair());
    c->send_text(req);
    auto eose = c->recv(5000);
    if (!eose || eose->find("EOSE") == std::string::npos) throw std::runtime_error("subscribe failed");
    subs.push_back(std::move(c));
  }
  int total = o.rate * o.seconds;
  std::vector<std::string> frames;
  for (int i = 0; i < total; ++i) {
    engine::Event e = o.in_channel ? note(pub_key, std::to_string(i), {{"h", channel}}, 9)
                                   : note(pub_key, std::to_string(i), {{"t", "fanout"}});
    frames.push_back("[\"EVENT\"," + e.raw + "]");
  }

  std::vector<std::atomic<double>> sent_at(static_cast<size_t>(total));
  auto before = read_usage(server.pid());
  auto before_publishing = read_usage(publishing.pid());
  std::thread pub([&] {
    double start = now_s();
    for (int i = 0; i < total; ++i) {
      double due = start + double(i) / o.rate;
      sleep_until_s(due);
      sent_at[size_t(i)].store(now_s(), std::memory_order_relaxed);
      publisher->send_text(frames[size_t(i)]);
    }
  });
  size_t expected = size_t(total) * subs.size();
  const Deliveries delivered = read_deliveries(subs, sent_at, expected, now_s() + o.seconds + 10);
  const std::vector<double>& latencies = delivered.latencies;
  pub.join();
  auto after = read_usage(server.pid());
  auto after_publishing = read_usage(publishing.pid());
  size_t got = latencies.size();
  double cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6;
  const double per_delivery = cpu_us / double(std::max<size_t>(1, got));
  // The floor over as many connections as there are subscribers, with the
  // relay idle but still holding them: what one delivery costs the kernel.
  const double floor = loopback_send_floor_us(o.subscribers);
  // And the latency floor: verify, fdatasync, a send to each subscriber (load/fanout_floor.h).
  const FanoutFloorOptions floor_options{.connections = o.subscribers, .rate = o.rate, .seconds = o.seconds, .dir = dir};
  const Deliveries floor_run = fanout_latency_floor(floor_options, note(pub_key, "floor", {{"t", "fanout"}}));
  const std::vector<double>& floor_latencies = floor_run.latencies;
  auto per_delivery_us = [](double cpu_s, size_t n) { return cpu_s * 1e6 / double(std::max<size_t>(1, n)); };
  std::map<std::string, double> figures = {
      {"deliveries_expected", double(expected)}, {"deliveries_received", double(got)},
      {"lost", double(expected - got)}, {"p50_ms", percentile_ms(latencies, 0.5)},
      {"p99_ms", percentile_ms(latencies, 0.99)}, {"floor_p50_ms", percentile_ms(floor_latencies, 0.5)},
      {"floor_p99_ms", percentile_ms(floor_latencies, 0.99)},
      {"floor_lost", double(expected - floor_latencies.size())},
      {"server_cpu_us_per_delivery", per_delivery}, {"send_floor_us", floor},
      {"ratio_to_send_floor", per_delivery / floor},
      {"reader_cpu_us_per_delivery", per_delivery_us(delivered.reader_cpu_s, got)},
      {"floor_reader_cpu_us_per_delivery", per_delivery_us(floor_run.reader_cpu_s, floor_latencies.size())},
      {"bare_verify_us", verify_us()}};
  if (other) {
    figures["publishing_node_cpu_us_per_event"] =
        (after_publishing.cpu_seconds - before_publishing.cpu_seconds) * 1e6 / std::max(1, total);
  }
  report(o, figures, before, after);
  if (figures["lost"] != 0 || figures["floor_lost"] != 0) throw std::runtime_error("a live delivery was lost");
}

}  // namespace buzz::load
