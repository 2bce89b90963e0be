// See server_process.h.
#include "tools/load/server_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tools/client/ws_client.h"

namespace buzz::load {

ProcessUsage read_usage(pid_t pid) {
  ProcessUsage u;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  size_t close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream fields(text.substr(close + 2));
    std::string f;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) {
      if (i == 14) utime = std::stoull(f);
      if (i == 15) stime = std::stoull(f);
    }
    u.cpu_seconds = double(utime + stime) / double(sysconf(_SC_CLK_TCK));
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) u.rss_bytes = std::stoull(line.substr(6)) * 1024;
  }
  return u;
}

ServerProcess::ServerProcess(const std::string& binary, const std::string& data_dir, uint16_t port)
    : port_(port), data_dir_(data_dir) {
  pid_ = fork();
  if (pid_ == 0) {
    std::string bind = "127.0.0.1:" + std::to_string(port);
    std::string url = "ws://127.0.0.1:" + std::to_string(port);
    execl(binary.c_str(), binary.c_str(), "serve", "--open", "--bind", bind.c_str(), "--relay-url", url.c_str(),
          "--data-dir", data_dir.c_str(), "--log-level", "warn", static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 200; ++i) {
    auto r = client::http_request("127.0.0.1", port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 500);
    if (r && r->find(" 200 ") != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("the server did not start: " + binary);
}

ServerProcess::~ServerProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status;
  waitpid(pid_, &status, 0);
  std::error_code ec;  // best effort
  std::filesystem::remove_all(data_dir_, ec);
}

}  // namespace buzz::load
