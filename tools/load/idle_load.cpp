// The idle-connection scenario; see idle_load.h.
#include "tools/load/idle_load.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "tools/load/load_client.h"

namespace buzz::load {

void run_idle(const Options& o) {
  ServerProcess server = start_relay(o);
  auto warm = connect_authed(server, engine::generate_keypair());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::vector<std::unique_ptr<client::WsClient>> conns;
  engine::Keypair key = engine::generate_keypair();
  auto open_until = [&](int n) {
    while (int(conns.size()) < n) {
      conns.push_back(connect_authed(server, key));
      if (!o.json && conns.size() % 1000 == 0) std::fprintf(stderr, "\ropened %zu / %d", conns.size(), o.connections);
    }
    std::this_thread::sleep_for(std::chrono::seconds(2));
    return read_usage(server.pid());
  };
  auto before = read_usage(server.pid());
  const int half = o.connections / 2;
  auto middle = open_until(half);
  auto after = open_until(o.connections);
  // Again once the allocator has had time to hand back what the handshakes
  // used and let go (a TLS handshake's buffers, docs/tls.md).
  std::this_thread::sleep_for(std::chrono::seconds(15));
  auto settled = read_usage(server.pid());
  if (!o.json) std::fprintf(stderr, "\n");
  report(o, {{"connections", double(o.connections)}, {"rss_before_mib", double(before.rss_bytes) / 1048576},
             {"rss_after_mib", double(after.rss_bytes) / 1048576},
             {"rss_bytes_per_connection", double(after.rss_bytes - middle.rss_bytes) / (o.connections - half)},
             {"rss_bytes_per_connection_all_in", double(after.rss_bytes - before.rss_bytes) / o.connections},
             {"rss_bytes_per_connection_all_in_settled", double(settled.rss_bytes - before.rss_bytes) / o.connections}});
}

}  // namespace buzz::load
