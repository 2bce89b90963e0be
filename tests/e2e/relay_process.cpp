// Child-process control for end-to-end tests; see tests/e2e/relay_process.h.
// Layout of the temp dir (mkdtemp under $TMPDIR or /tmp): relay.log holds
// the child's stdout+stderr, data/ is the data dir unless one was given.
// The child is started by tools/client/child_process.h.
#include "tests/e2e/relay_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/clock.h"
#include "server/ops/control_socket.h"
#include "tests/e2e/pg_test_store.h"
#include "tools/client/child_process.h"
#include "tools/client/http_client.h"

namespace buzz::test {
namespace {

constexpr int kHealthTimeoutMs = 10000;
constexpr int kStopGraceMs = 5000;
// A child that dies before /health most likely lost a race for its port
// (free_tcp_port releases it); try again with a new one.
constexpr int kStartAttempts = 3;
constexpr size_t kErrorTailBytes = 4096;

using Clock = std::chrono::steady_clock;

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  }
  return "ended with status " + std::to_string(status);
}

}  // namespace

int listen_loopback(uint16_t* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

uint16_t free_tcp_port() {
  uint16_t port = 0;
  const int fd = listen_loopback(&port);
  if (fd >= 0) ::close(fd);
  return port;
}

std::unique_ptr<RelayProcess> RelayProcess::start(const RelayOptions& opts,
                                                  std::string* error,
                                                  std::optional<client::TlsOptions> tls) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  const char* binary = std::getenv("BUZZ_BINARY");
  if (binary == nullptr || *binary == '\0') {
    *error = "BUZZ_BINARY is not set (CMake sets it for the e2e tests)";
    return nullptr;
  }
  if (::access(binary, X_OK) != 0) {
    *error = std::string("BUZZ_BINARY is not executable: ") + binary + ": " +
             std::strerror(errno);
    return nullptr;
  }

  std::unique_ptr<RelayProcess> relay(new RelayProcess());
  relay->tls_ = std::move(tls);
  const char* tmp = std::getenv("TMPDIR");
  std::string root = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  root += "/buzz-e2e-XXXXXX";
  if (::mkdtemp(root.data()) == nullptr) {
    *error = "mkdtemp " + root + ": " + std::strerror(errno);
    return nullptr;
  }
  relay->temp_root_ = root;
  relay->log_path_ = root + "/relay.log";
  relay->data_dir_ = opts.data_dir.empty() ? root + "/data" : opts.data_dir;
  std::error_code ec;
  std::filesystem::create_directories(relay->data_dir_, ec);
  if (ec) {
    *error = "cannot create data dir " + relay->data_dir_ + ": " + ec.message();
    return nullptr;
  }

  RelayOptions with_store = opts;
  std::string store;
  if (!pg_test_store_for(relay->data_dir_, &store, error)) return nullptr;
  if (!store.empty()) with_store.extra_args.insert(with_store.extra_args.begin(), {"--store", store});

  int attempt = 1;
  for (;; ++attempt) {
    if (!relay->spawn(binary, with_store, error)) return nullptr;
    bool exited = false;
    if (relay->wait_healthy(kHealthTimeoutMs, &exited, error)) {
      // A test-clock relay starts at this process's time, which another
      // relay's advance_clock may have moved ahead.
      const std::pair<std::string, std::string> kTestClock{"BUZZ_TEST_CLOCK", "1"};
      const bool test_clock = std::find(opts.env.begin(), opts.env.end(), kTestClock) != opts.env.end();
      const int64_t ahead_ms = engine::clock_offset_ms.load(std::memory_order_relaxed);
      if (test_clock && ahead_ms > 0 && !relay->move_relay_clock(uint64_t(ahead_ms / 1000), error)) return nullptr;
      return relay;
    }
    // Alive but not healthy: a retry would not help.
    if (!exited || attempt == kStartAttempts) break;
  }
  *error += " [attempt " + std::to_string(attempt) + " of " + std::to_string(kStartAttempts) +
            "]\n--- relay output (tail) ---\n" + relay->log_tail(kErrorTailBytes);
  return nullptr;  // the destructor stops the child and removes the temp dir
}

bool RelayProcess::spawn(const std::string& binary, const RelayOptions& opts,
                         std::string* error) {
  port_ = free_tcp_port();
  if (port_ == 0) {
    *error = "could not find a free TCP port";
    return false;
  }
  std::vector<std::string> args = {binary, "serve", "--bind",
                                   "127.0.0.1:" + std::to_string(port_), "--data-dir", data_dir_};
  args.insert(args.end(), opts.extra_args.begin(), opts.extra_args.end());
  // A banner per attempt keeps retries readable in the log.
  std::string banner = "=== buzz-e2e: exec";
  for (const auto& a : args) banner += " " + a;
  {
    std::ofstream log(log_path_, std::ios::app);
    log << banner << "\n";
    attempt_log_start_ = log.tellp();
  }
  // The child dies with the test process and logs to the shared file.
  const pid_t pid = client::start_child({.args = std::move(args),
                                         .env = opts.env,
                                         .stdin_path = "/dev/null",
                                         .stdout_path = log_path_,
                                         .stderr_path = log_path_,
                                         .append = true,
                                         .death_signal = SIGKILL},
                                        error);
  if (pid < 0) return false;
  pid_ = pid;
  running_ = true;
  return true;
}

bool RelayProcess::wait_healthy(int timeout_ms, bool* child_exited, std::string* error) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string last = "no response";
  for (;;) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      running_ = false;
      *child_exited = true;
      *error = "relay (port " + std::to_string(port_) + ") " + describe_status(status) +
               " before answering GET /health";
      return false;
    }
    if (const int answer = client::http_call(port_, "GET", "/health", {}, "", 1000, tls_ ? &*tls_ : nullptr).status; answer != 0) {
      last = "status " + std::to_string(answer);
      // Also require our child to be alive and bound: a 200 from a port it
      // does not hold comes from someone else.
      if (answer == 200 && ::waitpid(pid_, &status, WNOHANG) == 0 && says_it_listens()) return true;
    }
    if (Clock::now() >= deadline) {
      *error = "relay did not answer GET /health with 200 within " +
               std::to_string(timeout_ms) + " ms (last: " + last + ")";
      return false;
    }
    sleep_ms(20);
  }
}

bool RelayProcess::says_it_listens() const {
  std::ifstream in(log_path_, std::ios::binary);
  in.seekg(attempt_log_start_);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str().find(" listening on 127.0.0.1:" + std::to_string(port_) + " ") != std::string::npos;
}

int RelayProcess::stop(int sig, int grace_ms) {
  if (!running_) return -1;
  ::kill(pid_, sig);
  const auto deadline = Clock::now() + std::chrono::milliseconds(grace_ms);
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) {  // not ours any more
      status = -1;
      break;
    }
    if (Clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      running_ = false;
      return -1;
    }
    sleep_ms(10);
  }
  running_ = false;
  return status;
}

RelayProcess::~RelayProcess() {
  stop(SIGTERM, kStopGraceMs);
  engine::clock_offset_ms.fetch_sub(int64_t(clock_advanced_) * 1000);
  if (temp_root_.empty()) return;
  if (std::getenv("BUZZ_KEEP_TEST_DIRS") != nullptr) {
    std::fprintf(stderr, "buzz-e2e: kept %s\n", temp_root_.c_str());
    return;
  }
  if (data_dir_.rfind(temp_root_ + "/", 0) == 0) drop_pg_test_store(data_dir_);
  std::error_code ec;  // best effort: a leftover temp dir must not fail a test
  std::filesystem::remove_all(temp_root_, ec);
}

bool RelayProcess::move_relay_clock(uint64_t seconds, std::string* error) {
  const int fd = server::connect_control_socket(data_dir_ + "/control.sock");
  if (fd < 0) return *error = "cannot reach the control socket: " + std::string(std::strerror(errno)), false;
  std::string reply;
  const bool answered = server::write_line(fd, "advance-clock " + std::to_string(seconds)) && server::read_line(fd, &reply);
  ::close(fd);
  if (!answered || reply.find("\"ok\":true") == std::string::npos) return *error = "refused: " + reply, false;
  return true;
}

bool RelayProcess::advance_clock(uint64_t seconds, std::string* error) {
  if (!move_relay_clock(seconds, error)) return false;
  engine::advance_clock(seconds);
  clock_advanced_ += seconds;
  return true;
}

void RelayProcess::kill_hard() { stop(SIGKILL, kStopGraceMs); }

bool RelayProcess::terminate() {
  const int status = stop(SIGTERM, kStopGraceMs);
  return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool RelayProcess::wait_exit(int timeout_ms) {
  const int status = stop(0, timeout_ms);  // kill(pid, 0) signals nothing
  return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string RelayProcess::relay_url() const {
  return (tls_ ? "wss://127.0.0.1:" : "ws://127.0.0.1:") + std::to_string(port_);
}

std::string RelayProcess::stderr_text() const {
  std::ifstream in(log_path_, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string RelayProcess::log_tail(size_t max_bytes) const {
  std::string text = stderr_text();
  if (text.size() <= max_bytes) return text;
  return "..." + text.substr(text.size() - max_bytes);
}

std::string run_buzz(const std::string& args, int* status) {
  return run_command(std::string(std::getenv("BUZZ_BINARY")) + " " + args, status);
}

std::string run_command(const std::string& command, int* status) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[65536];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = p ? pclose(p) : -1;
  *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

}  // namespace buzz::test
