// A bare TCP connection to the relay, for what http_call and WsClient cannot
// do on purpose: a head without its body, a body cut off or trickled, a
// connection that just sits there.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace buzz::test {

class RawConnection {
 public:
  // `source`: a loopback address to connect from (127.0.0.0/8), for a test of
  // what the relay does with one address; nullptr = the kernel's choice.
  explicit RawConnection(uint16_t port, const char* source = nullptr) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (source) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      inet_pton(AF_INET, source, &from.sin_addr);
      EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from), 0);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    // A relay that stops reading without closing fails the test, not hangs it.
    timeval ten_seconds{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &ten_seconds, sizeof ten_seconds);
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  void send(const std::string& bytes) { EXPECT_TRUE(try_send(bytes)); }
  // False once the relay has ended the connection, or after 10 s blocked.
  bool try_send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == ssize_t(bytes.size());
  }

  // What arrives within timeout_ms (until `until` has been read, or EOF).
  std::string read(const std::string& until, int timeout_ms = 3000) {
    std::string got;
    pollfd p{fd_, POLLIN, 0};
    while (got.find(until) == std::string::npos && ::poll(&p, 1, timeout_ms) > 0) {
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, size_t(n));
    }
    return got;
  }

  // True if the relay ends the connection (EOF or reset) within timeout_ms;
  // whatever it sends first is discarded.
  bool closed_by_peer_within(int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, int(left.count())) <= 0) continue;
      char buf[4096];
      if (::recv(fd_, buf, sizeof buf, 0) <= 0) return true;
    }
  }

 private:
  int fd_;
};

}  // namespace buzz::test
