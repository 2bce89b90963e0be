// The HTTP/1.1 client of the tests, the load tool and the agent CLI; see
// http_client.h. parse_response_head is the one reader of a response head;
// HttpClient reads the rest off its own socket. Nothing here reaches TLS
// (http_call.cpp does), so the small `buzz` binary links this file alone.
#include "tools/client/http_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "net/chunked_body.h"

namespace buzz::client {
namespace {

using Clock = std::chrono::steady_clock;

int ms_until(HttpClient::Deadline deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return int(std::clamp<long long>(left, 0, 1 << 30));
}

bool has_header(const HttpHeaders& headers, std::string_view name) {
  return std::any_of(headers.begin(), headers.end(), [&](const auto& h) {
    return std::equal(h.first.begin(), h.first.end(), name.begin(), name.end(),
                      [](char a, char b) { return std::tolower(uint8_t(a)) == std::tolower(uint8_t(b)); });
  });
}

// Whether a comma-separated header value lists `token` (case-insensitive).
bool lists(const std::map<std::string, std::string>& headers, const std::string& name, std::string_view token) {
  const auto it = headers.find(name);
  if (it == headers.end()) return false;
  std::string value = it->second;
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  return value.find(token) != std::string::npos;
}

// A socket connected to one address before the deadline, or -1 and *why.
int connect_one(const addrinfo& a, HttpClient::Deadline deadline, std::string* why) {
  const int fd = ::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a.ai_protocol);
  if (fd < 0) {
    *why = std::strerror(errno);
    return -1;
  }
  int error = ::connect(fd, a.ai_addr, a.ai_addrlen) == 0 ? 0 : errno;
  if (error == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    const int ready = ::poll(&p, 1, ms_until(deadline));
    socklen_t len = sizeof error;
    if (ready <= 0) error = ETIMEDOUT;
    else ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
  }
  if (error != 0) {
    *why = error == ETIMEDOUT ? "timed out" : std::strerror(error);
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // send and read wait by poll, as the deadline says
  return fd;
}

}  // namespace

std::string request_head(const std::string& method, const std::string& target, const std::string& authority,
                         const HttpHeaders& headers, const std::string& body) {
  std::string head = method + " " + target + " HTTP/1.1\r\nHost: " + authority + "\r\n";
  for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
  // An empty POST still says so: some servers refuse one without a length (411).
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return head;
}

size_t parse_response_head(std::string_view bytes, HttpReply* reply) {
  const size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return std::string_view::npos;
  const std::string_view head = bytes.substr(0, head_end);
  reply->headers.clear();
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

HttpClient::HttpClient(uint16_t port)
    : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)), authority_("127.0.0.1:" + std::to_string(port)) {
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

HttpClient::HttpClient(const std::string& host, uint16_t port, const std::string& authority, Deadline deadline)
    : authority_(authority), deadline_(deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    throw std::runtime_error("could not resolve host " + host + ": " + ::gai_strerror(rc));
  }
  std::string why;
  for (const addrinfo* a = found; a && fd_ < 0 && Clock::now() < deadline; a = a->ai_next) fd_ = connect_one(*a, deadline, &why);
  ::freeaddrinfo(found);
  if (fd_ < 0) throw std::runtime_error("could not connect to " + authority + ": " + (why.empty() ? "timed out" : why));
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

HttpClient::~HttpClient() { ::close(fd_); }

bool HttpClient::wait_for(short events) {
  if (!deadline_) return true;
  pollfd p{fd_, events, 0};
  int ready;
  do {
    ready = ::poll(&p, 1, ms_until(*deadline_));
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) error_ = ready == 0 ? "timed out" : std::strerror(errno);
  return ready > 0;
}

bool HttpClient::send(const std::string& method, const std::string& target, const HttpHeaders& headers,
                      const std::string& body) {
  std::string req = request_head(method, target, authority_, headers, body);
  if (!body.empty() && !has_header(headers, "Content-Type")) req += "Content-Type: application/json\r\n";
  req += "\r\n" + body;
  for (size_t off = 0; off < req.size();) {
    if (!wait_for(POLLOUT)) return false;
    const ssize_t n = ::send(fd_, req.data() + off, req.size() - off, MSG_NOSIGNAL | (deadline_ ? MSG_DONTWAIT : 0));
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      error_ = std::strerror(errno);
      closing_ = true;
      return false;
    }
    off += size_t(n);
  }
  return true;
}

bool HttpClient::fill() {
  char chunk[65536];
  for (;;) {
    if (!wait_for(POLLIN)) return false;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, deadline_ ? MSG_DONTWAIT : 0);
    if (n > 0) {
      buffer_.append(chunk, size_t(n));
      return true;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    error_ = n == 0 ? "the server closed the connection" : std::strerror(errno);
    ended_ = n == 0;
    closing_ = true;
    return false;
  }
}

HttpReply HttpClient::read() {
  HttpReply reply;
  size_t body_start;
  for (;;) {
    while ((body_start = parse_response_head(buffer_, &reply)) == std::string::npos) {
      if (!fill()) return {};
    }
    if (reply.status <= 0) {
      error_ = "malformed response";
      closing_ = true;
      return {};
    }
    if (reply.status >= 200 || reply.status == 101) break;
    buffer_.erase(0, body_start);  // 100 Continue and the like: the answer follows
  }
  if (lists(reply.headers, "connection", "close")) closing_ = true;
  if (!read_body(&reply, body_start)) return {};
  return reply;
}

bool HttpClient::read_body(HttpReply* reply, size_t body_start) {
  if (lists(reply->headers, "transfer-encoding", "chunked")) {
    net::ChunkedDecoder decoder;
    for (size_t at = body_start;;) {
      size_t used = 0;
      const auto status = decoder.feed(std::string_view(buffer_).substr(at), &used, &reply->body);
      at += used;
      if (status == net::ChunkedDecoder::Status::kDone) {
        buffer_.erase(0, at);
        return true;
      }
      if (status == net::ChunkedDecoder::Status::kError) {
        error_ = "malformed chunked body";
        closing_ = true;
        return false;
      }
      if (!fill()) return false;
    }
  }
  const auto length = reply->headers.find("content-length");
  const bool no_body = reply->status == 204 || reply->status == 304 || reply->status == 101;
  if (length == reply->headers.end() && !no_body) {  // the body is what comes until the server closes
    while (fill()) {
    }
    if (!ended_) return false;
    reply->body = buffer_.substr(body_start);
    buffer_.clear();
    return true;
  }
  const size_t end = body_start + (no_body ? 0 : size_t(std::atoll(length->second.c_str())));
  while (buffer_.size() < end) {
    if (!fill()) return false;
  }
  reply->body = buffer_.substr(body_start, end - body_start);
  buffer_.erase(0, end);
  return true;
}

bool HttpClient::reusable() const {
  if (closing_ || !buffer_.empty()) return false;
  pollfd p{fd_, POLLIN, 0};  // an idle connection has nothing to read: readable means closed (or garbage)
  return ::poll(&p, 1, 0) == 0;
}

}  // namespace buzz::client
