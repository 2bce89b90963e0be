// The REST-read scenario; see messages_load.h.
#include "tools/load/messages_load.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

#include "engine/clock.h"
#include "engine/kind_numbers.h"
#include "tools/client/http_client.h"
#include "tools/load/load_client.h"

namespace buzz::load {

void run_messages(const Options& o) {
  ServerProcess server = start_relay(o);
  engine::Keypair owner = engine::generate_keypair();
  auto ws = connect_authed(server, owner);
  const std::string channel = "b0000000-0000-4000-8000-000000000001";
  send_all(*ws, {"[\"EVENT\"," + note(owner, "", {{"h", channel}, {"name", "bench"}}, kind::kCreateGroup).raw + "]"});
  // Stored kinds must be within 900 s of now: spread the history over 800 s.
  const uint64_t start = engine::unix_now() - 800;
  auto at = [&](int i) { return start + uint64_t(i) * 800 / uint64_t(o.events); };
  std::vector<std::string> posts, follow_ups;
  for (int i = 0; i < o.events; ++i) {
    const engine::Event m =
        engine::signed_event(owner, 9, at(i), {{"h", channel}}, "message " + std::to_string(i) + " about the quarterly plan");
    posts.push_back("[\"EVENT\"," + m.raw + "]");
    if (i % 10 == 0) {
      const engine::Event r = engine::signed_event(owner, 9, at(i) + 1, {{"h", channel}, {"e", m.id_hex(), "", "root"}}, "a reply");
      follow_ups.push_back("[\"EVENT\"," + r.raw + "]");
    }
    if (i % 5 == 0)
      follow_ups.push_back("[\"EVENT\"," + note(owner, "👍", {{"e", m.id_hex()}}, kind::kReaction).raw + "]");
  }
  send_all(*ws, posts);
  send_all(*ws, follow_ups);

  const std::string bearer = mint_bearer(server, owner, "messages:read");
  client::HttpClient setup(server.port());
  const std::string target = "/api/channels/" + channel + "/messages";
  client::HttpReply page = setup.call("GET", target, {{"Authorization", bearer}});
  if (page.status != 200) throw std::runtime_error("messages failed: " + page.body);

  std::atomic<uint64_t> done{0}, failed{0};
  auto before = read_usage(server.pid());
  const double t0 = now_s(), deadline = t0 + o.seconds;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      std::vector<std::unique_ptr<client::HttpClient>> conns;
      for (int i = 0; i < std::max(1, o.connections / 2); ++i) conns.push_back(std::make_unique<client::HttpClient>(server.port()));
      while (now_s() < deadline) {
        for (auto& c : conns) c->send("GET", target, {{"Authorization", bearer}});
        for (auto& c : conns) (c->read().status == 200 ? done : failed).fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  const double elapsed = now_s() - t0;
  auto after = read_usage(server.pid());
  const double cpu = after.cpu_seconds - before.cpu_seconds;
  report(o, {{"stored_messages", double(o.events)},
             {"page_bytes", double(page.body.size())},
             {"requests", double(done.load())},
             {"failed", double(failed.load())},
             {"requests_per_second", double(done.load()) / elapsed},
             {"server_cpu_us_per_request", cpu * 1e6 / double(std::max<uint64_t>(1, done.load()))},
             {"server_cores_used", cpu / elapsed},
             {"verify_us", verify_us()}},
         before, after);
}

}  // namespace buzz::load
