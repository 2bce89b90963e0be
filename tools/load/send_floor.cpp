// The loopback send floor; see send_floor.h.
#include "tools/load/send_floor.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace buzz::load {
namespace {

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("send floor: ") + what + " failed");
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// `n` connected pairs: senders[i] writes (TCP_NODELAY, as the relay's sockets), receivers[i] reads.
struct LoopbackPairs {
  std::vector<int> senders, receivers;

  explicit LoopbackPairs(int n) {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    check(listener >= 0, "socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    const bool listening = ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                           ::listen(listener, 1024) == 0 &&
                           ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    for (int i = 0; listening && i < n; ++i) {
      const int client = ::socket(AF_INET, SOCK_STREAM, 0);
      if (client < 0 || ::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) break;
      receivers.push_back(client);
      const int server = ::accept(listener, nullptr, nullptr);
      if (server < 0) break;
      int one = 1;
      ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      senders.push_back(server);
    }
    ::close(listener);
    if (senders.size() != size_t(n)) {
      close_all();  // the destructor does not run for a constructor that throws
      check(false, "connecting the loopback pairs");
    }
  }
  ~LoopbackPairs() { close_all(); }

  void close_all() {
    for (int fd : senders) ::close(fd);
    for (int fd : receivers) ::close(fd);
  }
};

}  // namespace

double loopback_send_floor_us(int connections, size_t frame_bytes, int sends) {
  LoopbackPairs pairs(connections);
  std::atomic<bool> done{false};
  std::thread reader([&] {
    const int ep = ::epoll_create1(0);
    for (int fd : pairs.receivers) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    epoll_event ready[64];
    static thread_local char buf[65536];
    while (!done.load(std::memory_order_relaxed)) {
      const int n = ::epoll_wait(ep, ready, 64, 50);
      for (int i = 0; i < n; ++i) {
        while (::recv(ready[i].data.fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
        }
      }
    }
    ::close(ep);
  });
  const std::string frame(frame_bytes, 'x');
  const double t0 = thread_cpu_s();
  size_t next = 0;
  bool short_send = false;
  for (int i = 0; i < sends; ++i) {
    short_send |= ::send(pairs.senders[next], frame.data(), frame.size(), 0) != ssize_t(frame.size());
    next = (next + 1) % pairs.senders.size();
  }
  const double cpu = thread_cpu_s() - t0;
  done = true;
  reader.join();
  check(!short_send, "a full-size send");
  return cpu * 1e6 / sends;
}

}  // namespace buzz::load
