// UpstreamLink: the proxy's one WebSocket to the relay, on a thread of its
// own. It connects, hands every received message up in batches, writes what
// it is given, and after any disconnect waits and connects again (1 s,
// doubling to 30 s; back to 1 s after a clean close, docs/reference/proxy.md §4.2).
// Authentication and what to send are the caller's business: the callbacks
// run on the link's thread and are expected to post to the caller's loop.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace buzz::proxy {

class UpstreamLink {
 public:
  struct Callbacks {
    std::function<void()> on_open;                             // connected, nothing sent yet
    std::function<void(std::vector<std::string>)> on_messages;  // in order
    std::function<void(std::string)> on_close;                 // why
  };

  UpstreamLink(std::string url, Callbacks callbacks);
  ~UpstreamLink();
  UpstreamLink(const UpstreamLink&) = delete;
  UpstreamLink& operator=(const UpstreamLink&) = delete;

  void start();
  void stop();
  // Any thread: queued for the current connection, in order; dropped if there is none.
  void send(std::string text);
  // Any thread: drops the current connection (e.g. its AUTH was refused); it reconnects after the delay.
  void drop();

 private:
  void run();
  void wake();
  void sleep_for_backoff();

  std::string url_;
  Callbacks cb_;
  std::thread thread_;
  std::atomic<bool> stopping_{false}, drop_{false}, connected_{false};
  int wake_fd_ = -1;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> outbox_;
  int backoff_ms_ = 1000;
};

}  // namespace buzz::proxy
