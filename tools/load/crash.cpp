// The kill -9 cycles of `buzz-load crash`; see crash.h.
#include "tools/load/crash.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <unordered_set>
#include <vector>

#include "engine/json_text.h"
#include "tools/load/load_client.h"

namespace buzz::load {
namespace {

constexpr size_t kWindow = 32;       // EVENTs each connection keeps unanswered
constexpr size_t kIdsPerQuery = 500;  // the relay's max_limit

// A loopback port nobody listens on now (the kernel's pick), for the next restart:
// ports free when the run began may not be by its fiftieth cycle.
uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  uint16_t port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  if (fd >= 0) ::close(fd);
  if (port == 0) throw std::runtime_error("no free loopback port");
  return port;
}

// Sends EVENTs on `c` until the relay dies; every id answered OK true goes into `acked`.
void ingest_until_killed(client::WsClient& c, const engine::Keypair& key, std::mutex& mu,
                         std::unordered_set<std::string>& acked) {
  size_t in_flight = 0;
  for (uint64_t sent = 0;;) {
    while (in_flight < kWindow) {
      if (!c.send_text("[\"EVENT\"," + note(key, "crash " + std::to_string(sent++)).raw + "]")) return;
      ++in_flight;
    }
    auto m = c.recv(3000);
    if (!m) return;  // the relay is gone
    if (m->rfind("[\"OK\",\"", 0) != 0) continue;
    --in_flight;
    if (m->find("\",true,") == std::string::npos) continue;
    std::lock_guard lock(mu);
    acked.insert(m->substr(7, 64));
  }
}

// How many of `ids` the relay has, asked in pages of kIdsPerQuery.
size_t count_stored(const ServerProcess& server, const std::unordered_set<std::string>& ids) {
  auto c = connect_authed(server, engine::generate_keypair());
  std::vector<std::string> all(ids.begin(), ids.end());
  size_t found = 0;
  for (size_t at = 0; at < all.size(); at += kIdsPerQuery) {
    const std::vector<std::string> page(all.begin() + at, all.begin() + std::min(all.size(), at + kIdsPerQuery));
    c->send_text("[\"REQ\",\"q\"," + json_object({{"ids", json_string_array(page)}}) + "]");
    for (;;) {
      auto m = c->recv(10000);
      if (!m) throw std::runtime_error("no EOSE from the restarted relay");
      if (m->rfind("[\"EVENT\"", 0) == 0) ++found;
      if (m->rfind("[\"EOSE\"", 0) == 0) break;
    }
    c->send_text("[\"CLOSE\",\"q\"]");
  }
  return found;
}

}  // namespace

std::map<std::string, double> run_crash(const CrashRun& run) {
  std::mt19937 rng(run.seed);
  std::uniform_int_distribution<int> kill_after_ms(100, 1500);
  std::mutex mu;
  std::unordered_set<std::string> acked;
  for (int cycle = 0; cycle < run.cycles; ++cycle) {
    ServerProcess server(run.binary, run.data_dir, free_port(), /*keep_data=*/true);
    std::vector<std::thread> writers;
    for (int i = 0; i < run.connections; ++i) {
      writers.emplace_back([&] {
        try {
          const engine::Keypair key = engine::generate_keypair();
          auto c = connect_authed(server, key);
          ingest_until_killed(*c, key, mu, acked);
        } catch (const std::exception&) {
          // refused or cut off mid-handshake by the kill: nothing was acknowledged on it
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms(rng)));
    ::kill(server.pid(), SIGKILL);
    for (auto& t : writers) t.join();
  }
  size_t found = 0;
  {
    ServerProcess last(run.binary, run.data_dir, free_port(), /*keep_data=*/true);
    found = count_stored(last, acked);
  }  // stopped: the audit log is verified at rest
  const std::string verify = run.binary + " audit verify --data-dir " + run.data_dir + " > /dev/null 2>&1";
  const int status = std::system(verify.c_str());
  return {{"cycles", double(run.cycles)},
          {"acknowledged", double(acked.size())},
          {"missing", double(acked.size() - found)},
          {"audit_verify_ok", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1.0 : 0.0}};
}

}  // namespace buzz::load
