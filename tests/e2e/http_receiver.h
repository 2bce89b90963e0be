// HttpReceiver: a loopback HTTP server for the workflow tests — the target of
// call_webhook steps. It accepts on 127.0.0.1:<free port>, reads each request
// (head and Content-Length body), records it and answers with the status,
// headers and body set beforehand (or raw bytes). One thread; stopped by the destructor.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace buzz::test {

struct ReceivedRequest {
  std::string method, target, head, body;
};

class HttpReceiver {
 public:
  HttpReceiver() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 16);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~HttpReceiver() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }

  uint16_t port() const { return port_; }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  void respond(int status, std::string body, std::string extra_headers = "") {
    std::lock_guard lock(mu_);
    status_ = status;
    body_ = std::move(body);
    extra_headers_ = std::move(extra_headers);
    raw_.clear();
  }
  // The answer as these bytes exactly (a chunked body, one read to the close).
  void respond_raw(std::string bytes) {
    std::lock_guard lock(mu_);
    raw_ = std::move(bytes);
  }
  // Waits for the n-th request (1-based) up to timeout_ms.
  bool wait_for(size_t n, int timeout_ms = 10000) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return received_.size() >= n; });
  }
  std::vector<ReceivedRequest> received() {
    std::lock_guard lock(mu_);
    return received_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      handle(c);
      ::close(c);
    }
  }
  void handle(int c) {
    std::string data;
    char buf[4096];
    size_t head_end = std::string::npos, want = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      data.append(buf, size_t(n));
      if (head_end == std::string::npos && (head_end = data.find("\r\n\r\n")) != std::string::npos) {
        std::string lower = data.substr(0, head_end);
        for (char& ch : lower) ch = char(std::tolower(uint8_t(ch)));
        if (size_t at = lower.find("content-length:"); at != std::string::npos) want = std::stoul(lower.substr(at + 15));
      }
      if (head_end != std::string::npos && data.size() >= head_end + 4 + want) break;
    }
    if (head_end == std::string::npos) return;
    ReceivedRequest r;
    r.head = data.substr(0, head_end);
    r.body = data.substr(head_end + 4);
    r.method = r.head.substr(0, r.head.find(' '));
    size_t t = r.head.find(' ') + 1;
    r.target = r.head.substr(t, r.head.find(' ', t) - t);
    std::string reply;
    {
      std::lock_guard lock(mu_);
      received_.push_back(std::move(r));
      reply = !raw_.empty() ? raw_
                            : "HTTP/1.1 " + std::to_string(status_) + " X\r\nContent-Length: " + std::to_string(body_.size()) +
                                  "\r\nConnection: close\r\n" + extra_headers_ + "\r\n" + body_;
    }
    cv_.notify_all();
    ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
  }

  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<ReceivedRequest> received_;
  int status_ = 200;
  std::string body_ = "ok";
  std::string extra_headers_;
  std::string raw_;
};

}  // namespace buzz::test
