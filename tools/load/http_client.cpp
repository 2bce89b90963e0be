#include "tools/load/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>
#include <strings.h>

namespace buzz::load {

HttpClient::HttpClient(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
}

HttpClient::~HttpClient() { ::close(fd_); }

bool HttpClient::send(const std::string& method, const std::string& target,
                      const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body) {
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [k, v] : headers) req += k + ": " + v + "\r\n";
  if (!body.empty()) req += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  for (size_t off = 0; off < req.size();) {
    ssize_t n = ::send(fd_, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += size_t(n);
  }
  return true;
}

HttpAnswer HttpClient::read() {
  char chunk[65536];
  auto fill = [&] {
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) buffer_.append(chunk, size_t(n));
    return n > 0;
  };
  size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill()) return {};
  }
  HttpAnswer a;
  a.status = std::atoi(buffer_.c_str() + 9);  // "HTTP/1.1 200"
  size_t length = 0;
  for (size_t at = buffer_.find("\r\n") + 2; at < head_end;) {
    size_t eol = buffer_.find("\r\n", at);
    if (strncasecmp(buffer_.c_str() + at, "content-length:", 15) == 0) length = size_t(std::atoll(buffer_.c_str() + at + 15));
    at = eol + 2;
  }
  while (buffer_.size() < head_end + 4 + length) {
    if (!fill()) return {};
  }
  a.body = buffer_.substr(head_end + 4, length);
  buffer_.erase(0, head_end + 4 + length);
  return a;
}

}  // namespace buzz::load
