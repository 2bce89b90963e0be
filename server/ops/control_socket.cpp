// The relay's control socket; see control_socket.h.
#include "server/ops/control_socket.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "engine/thread_role.h"
#include "server/common/log.h"

namespace buzz::server {
namespace {

bool socket_address(const std::string& path, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (path.size() >= sizeof addr->sun_path) return false;
  std::memcpy(addr->sun_path, path.data(), path.size());
  return true;
}

// The relay's own user, or root.
bool trusted_peer(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  return cred.uid == ::geteuid() || cred.uid == 0;
}

}  // namespace

engine::Result<std::unique_ptr<ControlSocket>> ControlSocket::open(const std::string& path, Handler handler) {
  sockaddr_un addr;
  if (!socket_address(path, &addr)) return engine::Error{"control socket path too long (over 107 bytes): " + path};
  std::unique_ptr<ControlSocket> s(new ControlSocket());
  s->path_ = path;
  s->handler_ = std::move(handler);
  s->listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  s->stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (s->listen_fd_ < 0 || s->stop_fd_ < 0) return engine::Error{std::string("control socket: ") + std::strerror(errno)};
  ::unlink(path.c_str());  // a previous run's, or a crash's: nobody answers on it
  // Owner-only from the moment it exists: the mode comes from the umask at bind.
  const mode_t old_mask = ::umask(0177);
  const int bound = ::bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  const int bind_errno = errno;
  ::umask(old_mask);
  if (bound != 0 || ::listen(s->listen_fd_, 4) != 0) {
    return engine::Error{"cannot listen on the control socket " + path + ": " + std::strerror(bind_errno)};
  }
  return s;
}

ControlSocket::~ControlSocket() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void ControlSocket::start() {
  thread_ = std::thread([this] {
    engine::set_thread_role("buzz-control", engine::ThreadRole::kBackground);
    run();
  });
}

void ControlSocket::stop() {
  if (!thread_.joinable()) return;
  const uint64_t one = 1;
  (void)::write(stop_fd_, &one, sizeof one);
  thread_.join();
  ::unlink(path_.c_str());
}

void ControlSocket::run() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::string request;
    if (!trusted_peer(fd)) {
      log_warn("control socket: a connection from another user refused", {{"socket", path_}});
      (void)write_line(fd, R"({"ok":false,"error":"forbidden: not the relay's user"})");
    } else if (read_line(fd, &request)) {
      handler_(request, fd, stop_fd_);
    }
    ::close(fd);
  }
}

bool write_line(int fd, std::string_view line) {
  std::string out(line);
  out.push_back('\n');
  for (std::string_view left = out; !left.empty();) {
    ssize_t n = ::send(fd, left.data(), left.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    left.remove_prefix(size_t(n));
  }
  return true;
}

bool read_line(int fd, std::string* line) {
  line->clear();
  for (char c;;) {
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    if (line->size() >= 64 * 1024) return false;  // no request is this long
    line->push_back(c);
  }
}

void wait_for_close(int fd, int stop_fd, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int wait_ms = -1;
    if (timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      wait_ms = int(std::max<int64_t>(left.count(), 0));
    }
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    const int ready = ::poll(fds, stop_fd >= 0 ? 2 : 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return;  // an error, or the time is up
    if (stop_fd >= 0 && fds[1].revents) return;
    char buf[256];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EINTR)) return;
  }
}

void hang_up(int fd, int timeout_ms) {
  ::shutdown(fd, SHUT_WR);
  wait_for_close(fd, -1, timeout_ms);
  ::close(fd);
}

int connect_control_socket(const std::string& path) {
  sockaddr_un addr;
  if (!socket_address(path, &addr)) return errno = ENAMETOOLONG, -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace buzz::server
