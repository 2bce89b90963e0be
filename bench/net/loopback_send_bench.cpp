// The kernel's floor under live fan-out: one send() of a delivery-sized frame
// (400 bytes) to one of 256 loopback TCP connections, while another thread
// drains them through epoll as a subscriber would. Over loopback the receiving
// half (TCP receive, waking the reader) runs in the sender's system call, so the
// benchmark thread's CPU time per send is what a relay pays per delivery at the
// least, before any of its own work. docs/performance.md compares the relay's
// per-delivery CPU with it.
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kConnections = 256;
constexpr size_t kFrameBytes = 400;

void check(bool ok, const char* what) {
  if (!ok) {
    std::perror(what);
    std::abort();
  }
}

// kConnections connected pairs: senders[i] writes, receivers[i] reads.
struct LoopbackPairs {
  std::vector<int> senders, receivers;

  LoopbackPairs() {
    int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    check(listener >= 0, "socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    check(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0, "bind");
    check(::listen(listener, kConnections) == 0, "listen");
    socklen_t len = sizeof addr;
    check(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0, "getsockname");
    for (int i = 0; i < kConnections; ++i) {
      int client = ::socket(AF_INET, SOCK_STREAM, 0);
      check(client >= 0 && ::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0, "connect");
      int server = ::accept(listener, nullptr, nullptr);
      check(server >= 0, "accept");
      int one = 1;
      ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as the relay's sockets
      senders.push_back(server);
      receivers.push_back(client);
    }
    ::close(listener);
  }
  ~LoopbackPairs() {
    for (int fd : senders) ::close(fd);
    for (int fd : receivers) ::close(fd);
  }
};

void BM_LoopbackSend(benchmark::State& state) {
  LoopbackPairs pairs;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    int ep = ::epoll_create1(0);
    for (int fd : pairs.receivers) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    epoll_event ready[64];
    char buf[65536];
    while (!done.load(std::memory_order_relaxed)) {
      int n = ::epoll_wait(ep, ready, 64, 50);
      for (int i = 0; i < n; ++i) {
        while (::recv(ready[i].data.fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
        }
      }
    }
    ::close(ep);
  });
  const std::string frame(kFrameBytes, 'x');
  size_t next = 0;
  for (auto _ : state) {
    ssize_t sent = ::send(pairs.senders[next], frame.data(), frame.size(), 0);
    if (sent != ssize_t(frame.size())) state.SkipWithError("short send");
    next = (next + 1) % pairs.senders.size();
  }
  done = true;
  reader.join();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LoopbackSend);

}  // namespace
