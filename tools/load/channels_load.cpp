// The team-traffic scenario; see channels_load.h.
#include "tools/load/channels_load.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "tools/load/load_client.h"

namespace buzz::load {

void run_channels(const Options& o) {
  ServerProcess server = start_relay(o);
  engine::Keypair owner = engine::generate_keypair();
  auto admin = connect_authed(server, owner);
  std::vector<std::string> ids;
  std::vector<std::string> setup;
  for (int i = 0; i < o.channels; ++i) {
    ids.push_back(channel_uuid(i));
    setup.push_back("[\"EVENT\"," +
                    note(owner, "",
                         {{"h", ids.back()}, {"name", "load " + std::to_string(i)}, {"visibility", "private"}},
                         kind::kCreateGroup)
                        .raw +
                    "]");
  }
  std::vector<engine::Keypair> members;
  std::vector<std::vector<int>> member_channels(size_t(o.members));
  for (int m = 0; m < o.members; ++m) {
    members.push_back(engine::generate_keypair());
    for (int k = 0; k < o.per_member; ++k) {
      int ch = (m + k * (o.channels / std::max(1, o.per_member) + 1)) % o.channels;
      member_channels[size_t(m)].push_back(ch);
      setup.push_back(
          "[\"EVENT\"," +
          note(owner, "", {{"h", ids[size_t(ch)]}, {"p", engine::to_hex(members.back().pubkey)}}, kind::kPutUser).raw +
          "]");
    }
  }
  send_all(*admin, setup);

  std::vector<std::unique_ptr<client::WsClient>> subs;
  size_t deliveries_per_channel_total = 0;
  std::vector<size_t> channel_members(size_t(o.channels), 0);
  for (int m = 0; m < o.members; ++m) {
    auto c = connect_authed(server, members[size_t(m)]);
    for (int ch : member_channels[size_t(m)]) {
      channel_members[size_t(ch)]++;
      c->send_text("[\"REQ\",\"c" + std::to_string(ch) + "\",{\"kinds\":[9],\"#h\":[\"" + ids[size_t(ch)] + "\"],\"limit\":0}]");
      auto eose = c->recv(5000);
      if (!eose || eose->find("EOSE") == std::string::npos) throw std::runtime_error("subscribe failed: " + eose.value_or("timeout"));
    }
    subs.push_back(std::move(c));
  }
  int total = o.rate * o.seconds;
  std::vector<std::string> frames;
  for (int i = 0; i < total; ++i) {
    size_t ch = size_t(i % o.channels);
    deliveries_per_channel_total += channel_members[ch];
    frames.push_back("[\"EVENT\"," + note(owner, std::to_string(i), {{"h", ids[ch]}}, kind::kStreamMessage).raw + "]");
  }
  constexpr int kPublishers = 8;
  std::vector<std::unique_ptr<client::WsClient>> pubs;
  for (int p = 0; p < kPublishers; ++p) pubs.push_back(connect_authed(server, owner));

  std::vector<std::atomic<double>> sent_at(static_cast<size_t>(total));
  auto before = read_usage(server.pid());
  std::vector<std::thread> publishers;
  for (int p = 0; p < kPublishers; ++p) {
    publishers.emplace_back([&, p] {
      double start = now_s();
      for (int i = p; i < total; i += kPublishers) {
        double due = start + double(i) / o.rate;
        sleep_until_s(due);
        sent_at[size_t(i)].store(now_s(), std::memory_order_relaxed);
        pubs[size_t(p)]->send_text(frames[size_t(i)]);
        while (pubs[size_t(p)]->recv(0)) {}  // drain the OKs
      }
    });
  }
  const Deliveries delivered = read_deliveries(subs, sent_at, deliveries_per_channel_total, now_s() + o.seconds + 10);
  const std::vector<double>& latencies = delivered.latencies;
  size_t got = latencies.size();
  for (auto& t : publishers) t.join();
  auto after = read_usage(server.pid());
  double cpu_us = (after.cpu_seconds - before.cpu_seconds) * 1e6;
  report(o, {{"channels", double(o.channels)}, {"members", double(o.members)}, {"events", double(total)},
             {"deliveries_expected", double(deliveries_per_channel_total)}, {"deliveries_received", double(got)},
             {"lost", double(deliveries_per_channel_total - got)}, {"p50_ms", percentile_ms(latencies, 0.5)},
             {"p99_ms", percentile_ms(latencies, 0.99)},
             {"server_cpu_us_per_delivery", cpu_us / double(std::max<size_t>(1, got))},
             {"server_cpu_us_per_event", cpu_us / double(std::max(1, total))},
             {"reader_cpu_us_per_delivery", delivered.reader_cpu_s * 1e6 / double(std::max<size_t>(1, got))},
             {"bare_verify_us", verify_us()}},
         before, after);
}

}  // namespace buzz::load
