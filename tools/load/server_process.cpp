// See server_process.h.
#include "tools/load/server_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tools/client/child_process.h"
#include "tools/client/http_client.h"

namespace buzz::load {

namespace {

// utime + stime of a /proc .../stat file, in seconds; `name` gets the comm field.
double read_stat_cpu(const std::string& path, std::string* name = nullptr) {
  std::ifstream stat(path);
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos) return 0;
  if (name) *name = text.substr(open + 1, close - open - 1);
  std::istringstream fields(text.substr(close + 2));
  std::string f;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stoull(f);
    if (i == 15) stime = std::stoull(f);
  }
  return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

}  // namespace

ProcessUsage read_usage(pid_t pid) {
  ProcessUsage u;
  const std::string proc = "/proc/" + std::to_string(pid);
  u.cpu_seconds = read_stat_cpu(proc + "/stat");
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(proc + "/task", ec)) {
    std::string name;
    const double cpu = read_stat_cpu(task.path() / "stat", &name);
    while (!name.empty() && (std::isdigit(static_cast<unsigned char>(name.back())) || name.back() == '-')) name.pop_back();
    u.cpu_by_thread[name.empty() ? "other" : name] += cpu;
  }
  std::ifstream status(proc + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) u.rss_bytes = std::stoull(line.substr(6)) * 1024;
    if (line.rfind("RssFile:", 0) == 0 || line.rfind("RssShmem:", 0) == 0) {
      u.rss_file_bytes += std::stoull(line.substr(line.find(':') + 1)) * 1024;
    }
  }
  return u;
}

// A CA and a certificate it signs for 127.0.0.1 in `dir` (the openssl CLI):
// cert.pem, cert.key and ca.pem.
void make_test_pki(const std::string& dir) {
  std::filesystem::create_directories(dir);
  const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes ";
  const std::string commands[] = {
      "openssl req -x509" + ec + "-days 2 -subj /CN=buzz-load-ca -keyout " + dir + "/ca.key -out " + dir + "/ca.pem",
      "openssl req" + ec + "-subj /CN=localhost -keyout " + dir + "/cert.key -out " + dir + "/cert.csr",
      "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > " + dir + "/cert.ext",
      "openssl x509 -req -in " + dir + "/cert.csr -CA " + dir + "/ca.pem -CAkey " + dir + "/ca.key -CAcreateserial -days 2 -extfile " +
          dir + "/cert.ext -out " + dir + "/cert.pem"};
  for (const std::string& c : commands) {
    if (std::system((c + " >/dev/null 2>&1").c_str()) != 0) throw std::runtime_error("making a test certificate failed: " + c);
  }
}

ServerProcess::ServerProcess(const std::string& binary, const std::string& data_dir, uint16_t port, bool keep_data, bool tls)
    : port_(port), data_dir_(data_dir), keep_data_(keep_data) {
  std::vector<std::string> tls_args;
  if (tls) {
    pki_dir_ = data_dir + ".pki";
    make_test_pki(pki_dir_);
    tls_ = client::TlsOptions{pki_dir_ + "/ca.pem", "localhost"};
    tls_args = {"--tls-cert", pki_dir_ + "/cert.pem", "--tls-key", pki_dir_ + "/cert.key"};
  }
  // Scenarios choose their own connection counts (idle opens 10,000 plus a
  // warm-up one); the cap and its refusal are tested end to end elsewhere.
  // Every client comes from 127.0.0.1, and some share a key: the caps per
  // address and per pubkey (docs/limits.md, "Connections") would stop them.
  // Every load client is a human pipelining far past a human's limits
  // (docs/reference/protocol.md §14). The limits stay on, as high as they go, so the
  // figures include counting every frame and message. Each is ours if we set it.
  client::Environment env;
  for (const auto& [name, value] : {std::pair{"BUZZ_MAX_CONNECTIONS", "60000"},
                                    std::pair{"BUZZ_MAX_UNAUTHENTICATED_PER_ADDRESS", "0"}, std::pair{"BUZZ_MAX_CONNECTIONS_PER_PUBKEY", "0"},
                                    std::pair{"BUZZ_HUMAN_WS_EVENTS_PER_SEC", "100000000"},
                                    std::pair{"BUZZ_HUMAN_MESSAGES_PER_MIN", "100000000"}, std::pair{"BUZZ_HUMAN_API_CALLS_PER_MIN", "100000000"},
                                    std::pair{"BUZZ_HUMAN_READS_PER_SEC", "100000000"}, std::pair{"BUZZ_HUMAN_READS_BURST", "100000000"}}) {
    if (std::getenv(name) == nullptr) env.emplace_back(name, value);
  }
  const std::string bind = "127.0.0.1:" + std::to_string(port);
  std::string error;
  std::vector<std::string> args = {binary, "serve", "--open", "--bind", bind, "--relay-url", url(), "--data-dir", data_dir,
                                   "--log-level", "warn"};
  args.insert(args.end(), tls_args.begin(), tls_args.end());
  pid_ = client::start_child({.args = std::move(args),
                              .env = env,
                              .death_signal = SIGTERM},  // a load run that dies takes its server with it
                             &error);
  if (pid_ < 0) throw std::runtime_error("the server did not start: " + error);
  for (int i = 0; i < 200; ++i) {
    if (client::http_call(port, "GET", "/health", {}, "", 500, this->tls()).status == 200) return;
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
  if (!pki_dir_.empty()) std::filesystem::remove_all(pki_dir_, ec);
  if (keep_data_) return;
  std::filesystem::remove_all(data_dir_, ec);
}

}  // namespace buzz::load
