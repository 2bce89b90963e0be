// The loopback send floor; see send_floor.h.
#include "tools/load/send_floor.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "tools/load/thread_cpu.h"

namespace buzz::load {
LoopbackPairs::LoopbackPairs(int n) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const bool listening = listener >= 0 && ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                         ::listen(listener, 1024) == 0 &&
                         ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  for (int i = 0; listening && i < n; ++i) {
    const int client = ::socket(AF_INET, SOCK_STREAM, 0);
    if (client < 0) break;
    receivers.push_back(client);
    if (::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) break;
    const int server = ::accept(listener, nullptr, nullptr);
    if (server < 0) break;
    int one = 1;
    ::setsockopt(server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    senders.push_back(server);
  }
  if (listener >= 0) ::close(listener);
  if (senders.size() != size_t(n) || n < 1) {
    for (int fd : senders) ::close(fd);  // the destructor does not run for a constructor that throws
    for (int fd : receivers) ::close(fd);
    throw std::runtime_error("send floor: cannot connect " + std::to_string(n) + " loopback pairs");
  }
}

LoopbackPairs::~LoopbackPairs() {
  for (int fd : senders) ::close(fd);
  for (int fd : receivers) ::close(fd);
}

LoopbackFloor::LoopbackFloor(int connections, size_t frame_bytes) : pairs_(connections), frame_(frame_bytes, 'x') {
  reader_ = std::thread([this] {
    const int ep = ::epoll_create1(0);
    for (int fd : pairs_.receivers) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    }
    epoll_event ready[64];
    static thread_local char buf[65536];
    while (!done_.load(std::memory_order_relaxed)) {
      const int n = ::epoll_wait(ep, ready, 64, 50);
      for (int i = 0; i < n; ++i) {
        while (::recv(ready[i].data.fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
        }
      }
    }
    ::close(ep);
  });
}

LoopbackFloor::~LoopbackFloor() {
  done_ = true;
  reader_.join();
}

bool LoopbackFloor::send_next() {
  const bool whole = ::send(pairs_.senders[next_], frame_.data(), frame_.size(), 0) == ssize_t(frame_.size());
  next_ = (next_ + 1) % pairs_.senders.size();
  return whole;
}

double loopback_send_floor_us(int connections, size_t frame_bytes, int sends) {
  LoopbackFloor floor(connections, frame_bytes);
  const double t0 = thread_cpu_seconds();
  bool whole = true;
  for (int i = 0; i < sends; ++i) whole &= floor.send_next();
  const double cpu = thread_cpu_seconds() - t0;
  if (!whole) throw std::runtime_error("send floor: a short send");
  return cpu * 1e6 / sends;
}

}  // namespace buzz::load
