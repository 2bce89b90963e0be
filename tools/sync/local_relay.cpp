// LocalRelay; see local_relay.h.
#include "tools/sync/local_relay.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tools/client/ws_client.h"

namespace buzz::sync {
namespace {

// A loopback port free right now (the kernel's pick, released for the child).
uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace

engine::Result<std::unique_ptr<LocalRelay>> LocalRelay::spawn(const std::string& data_dir) {
  const uint16_t port = free_port();
  if (port == 0) return engine::Error{"no free loopback port"};
  const std::string bind = "127.0.0.1:" + std::to_string(port);
  const std::string url = "ws://" + bind;
  std::vector<std::string> args = {"buzz", "serve", "--data-dir", data_dir, "--bind", bind, "--relay-url", url};
  pid_t pid = ::fork();
  if (pid < 0) return engine::Error{"fork failed"};
  if (pid == 0) {
    // Our stdout is the sync's report; the relay's banner goes nowhere, its logs to stderr.
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDOUT_FILENO);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  return std::unique_ptr<LocalRelay>(new LocalRelay(pid, port, data_dir, url));
}

engine::Status LocalRelay::wait_ready() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::string error;
    if (client::WsClient::connect("127.0.0.1", port_, &error, "/", 1000)) return {};
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return engine::Error{"buzz serve on " + data_dir_ + " exited (is its relay already running?)"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return engine::Error{"buzz serve on " + data_dir_ + " did not start within 30 s"};
}

LocalRelay::~LocalRelay() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  ::waitpid(pid_, &status, 0);
}

}  // namespace buzz::sync
