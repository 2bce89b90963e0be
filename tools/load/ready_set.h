// Readiness over many load connections with epoll: poll() over thousands of
// sockets would cost the load tool more CPU than the relay spends serving them.
#pragma once

#include <sys/epoll.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "tools/client/ws_client.h"

namespace buzz::load {

class ReadySet {
 public:
  // Watches conns[i] for every i in `which` (all of them when it is empty).
  explicit ReadySet(const std::vector<std::unique_ptr<client::WsClient>>& conns, const std::vector<size_t>& which = {})
      : fd_(epoll_create1(0)) {
    auto watch = [&](size_t i) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i;
      epoll_ctl(fd_, EPOLL_CTL_ADD, conns[i]->fd(), &ev);
    };
    if (which.empty()) {
      for (size_t i = 0; i < conns.size(); ++i) watch(i);
    }
    for (size_t i : which) watch(i);
  }
  ~ReadySet() { close(fd_); }
  ReadySet(const ReadySet&) = delete;
  ReadySet& operator=(const ReadySet&) = delete;

  // Calls on_ready(index) for each connection with data; false on timeout.
  template <class F>
  bool wait(int timeout_ms, F&& on_ready) {
    epoll_event events[256];
    const int n = epoll_wait(fd_, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) on_ready(size_t(events[i].data.u64));
    return n > 0;
  }

 private:
  int fd_;
};

}  // namespace buzz::load
