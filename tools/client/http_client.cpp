// The loopback HTTP client of the tests and the load tool; see http_client.h.
// parse_head is the one reader of a response head; http_call leaves the bytes
// to http_request (ws_client.h), HttpClient reads them off its own socket.
#include "tools/client/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "tools/client/ws_client.h"

namespace buzz::client {
namespace {

// The request line, Host and `headers`, and Content-Length with a body; the
// caller adds its own lines and ends the head.
std::string head_text(const std::string& method, const std::string& target, uint16_t port, const HttpHeaders& headers,
                      const std::string& body) {
  std::string head = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
  for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
  if (!body.empty()) head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return head;
}

// Reads the status and the headers of the response `bytes` begins with into
// *reply; returns where its body starts, or npos while the head is incomplete.
size_t parse_head(std::string_view bytes, HttpReply* reply) {
  const size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return std::string_view::npos;
  const std::string_view head = bytes.substr(0, head_end);
  if (head.size() > 12) reply->status = std::atoi(std::string(head.substr(9, 3)).c_str());  // "HTTP/1.1 200"
  for (size_t pos = head.find("\r\n"); pos != std::string_view::npos;) {
    const size_t next = head.find("\r\n", pos + 2);
    const std::string_view line = head.substr(pos + 2, next == std::string_view::npos ? std::string_view::npos : next - pos - 2);
    if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
      std::string name(line.substr(0, colon));
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      std::string_view value = line.substr(colon + 1);
      value.remove_prefix(std::min(value.size(), value.find_first_not_of(' ')));
      reply->headers[name] = std::string(value);
    }
    pos = next;
  }
  return head_end + 4;
}

}  // namespace

HttpReply http_call(uint16_t port, const std::string& method, const std::string& target, const HttpHeaders& headers,
                    const std::string& body, int timeout_ms, const TlsOptions* tls) {
  const std::string request = head_text(method, target, port, headers, body) + "Connection: close\r\n\r\n" + body;
  HttpReply reply;
  const auto raw = http_request("127.0.0.1", port, request, timeout_ms, tls);
  if (!raw) return reply;
  const size_t body_start = parse_head(*raw, &reply);
  if (body_start != std::string::npos) reply.body = raw->substr(body_start);
  return reply;
}

HttpClient::HttpClient(uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)), port_(port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
}

HttpClient::~HttpClient() { ::close(fd_); }

bool HttpClient::send(const std::string& method, const std::string& target, const HttpHeaders& headers,
                      const std::string& body) {
  std::string req = head_text(method, target, port_, headers, body);
  if (!body.empty()) req += "Content-Type: application/json\r\n";
  req += "\r\n" + body;
  for (size_t off = 0; off < req.size();) {
    ssize_t n = ::send(fd_, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += size_t(n);
  }
  return true;
}

HttpReply HttpClient::read() {
  char chunk[65536];
  auto fill = [&] {
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) buffer_.append(chunk, size_t(n));
    return n > 0;
  };
  HttpReply reply;
  size_t body_start;
  while ((body_start = parse_head(buffer_, &reply)) == std::string::npos) {
    if (!fill()) return {};
  }
  const auto length = reply.headers.find("content-length");
  const size_t end = body_start + (length == reply.headers.end() ? 0 : size_t(std::atoll(length->second.c_str())));
  while (buffer_.size() < end) {
    if (!fill()) return {};
  }
  reply.body = buffer_.substr(body_start, end - body_start);
  buffer_.erase(0, end);
  return reply;
}

}  // namespace buzz::client
