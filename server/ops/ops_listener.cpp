// The side ports' listener; see ops_listener.h.
#include "server/ops/ops_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/thread_role.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxHead = 8192;  // a probe's or a scraper's request is a few hundred bytes
constexpr timeval kPeerTimeout{2, 0};

int bind_listener(const std::string& host, uint16_t port, std::string* error) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    *error = "not an IPv4 address: " + host;
    return -1;
  }
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 64) != 0) {
    *error = std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

void write_all(int fd, const std::string& data) {
  for (size_t off = 0; off < data.size();) {
    ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;  // the peer left or stalled past the timeout: nothing to do
    off += size_t(n);
  }
}

}  // namespace

engine::Result<std::unique_ptr<OpsListener>> OpsListener::open(const std::string& host, std::vector<Endpoint> endpoints) {
  std::unique_ptr<OpsListener> l(new OpsListener());
  for (const Endpoint& e : endpoints) {
    std::string why;
    int fd = bind_listener(host, e.port, &why);
    if (fd < 0) return engine::Error{e.name + " port " + host + ":" + std::to_string(e.port) + ": " + why};
    l->listen_fds_.push_back(fd);
  }
  l->endpoints_ = std::move(endpoints);
  l->stop_fd_ = eventfd(0, EFD_CLOEXEC);
  return l;
}

OpsListener::~OpsListener() {
  stop();
  for (int fd : listen_fds_) close(fd);
  if (stop_fd_ >= 0) close(stop_fd_);
}

void OpsListener::start() {
  if (listen_fds_.empty()) return;  // no side port configured: no thread either
  thread_ = std::thread([this] {
    engine::set_thread_role("buzz-ops", engine::ThreadRole::kBackground);
    run();
  });
}

void OpsListener::stop() {
  if (!thread_.joinable()) return;
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(stop_fd_, &one, sizeof(one));
  thread_.join();
}

void OpsListener::run() {
  std::vector<pollfd> fds;
  for (int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
  fds.push_back({stop_fd_, POLLIN, 0});
  for (;;) {
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    if (fds.back().revents != 0) return;
    for (size_t i = 0; i < listen_fds_.size(); ++i) {
      if (fds[i].revents == 0) continue;
      int conn = accept4(listen_fds_[i], nullptr, nullptr, SOCK_CLOEXEC);
      if (conn < 0) continue;
      setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &kPeerTimeout, sizeof(kPeerTimeout));
      setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &kPeerTimeout, sizeof(kPeerTimeout));
      serve(conn, endpoints_[i].handler);
      close(conn);
    }
  }
}

// One request: its head only (a body, if any, is ignored), then the answer
// and close.
void OpsListener::serve(int fd, const Handler& handler) const {
  std::string data;
  net::HttpRequest req;
  net::ParseOutcome parsed{net::ParseState::kNeedMore, 0, 0, {}};
  char buf[2048];
  while (parsed.state == net::ParseState::kNeedMore) {
    if (data.size() >= kMaxHead) {
      parsed = {net::ParseState::kError, 0, 431, "request head too large"};
      break;
    }
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;  // closed, or silent past the timeout
    data.append(buf, size_t(n));
    req = {};
    parsed = net::parse_head(data, &req);
  }
  net::HttpResponse r;
  if (parsed.state == net::ParseState::kError) {
    r = net::HttpResponse::json(parsed.error_status, R"({"error":"bad request"})");
  } else if (req.method != "GET" && req.method != "HEAD") {
    r = net::HttpResponse::json(405, R"({"error":"method not allowed"})");
  } else {
    r = handler(req).value_or(net::HttpResponse::json(404, R"({"error":"not found"})"));
  }
  write_all(fd, net::serialize_response(r, /*keep_alive=*/false, /*head_only=*/req.method == "HEAD"));
}

}  // namespace buzz::server
