// Starting the real `buzz serve` for a load run, and reading its CPU time and
// RSS from /proc: on a 2-core machine the load generator shares the cores with
// the server, so only the server's own CPU per unit of work is a fair figure.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "tools/client/ws_client.h"

namespace buzz::load {

struct ProcessUsage {
  double cpu_seconds = 0;  // user + system
  uint64_t rss_bytes = 0;
  uint64_t rss_file_bytes = 0;  // of rss_bytes, pages of files and shared memory (the rest is anonymous: heaps, stacks)
  // CPU seconds per thread role: the thread name with its trailing index
  // dropped (buzz-loop-0 and buzz-loop-1 are both "buzz-loop"), so a run can
  // say which part of the relay (loops, store writer, audit chain, search,
  // compactions) its CPU went to.
  std::map<std::string, double> cpu_by_thread;
};

ProcessUsage read_usage(pid_t pid);

class ServerProcess {
 public:
  // Starts `binary serve --open --bind 127.0.0.1:port --data-dir dir` and waits for /health.
  // `keep_data`: the directory outlives this server (a crash run restarts on it).
  // `tls`: it serves wss:// (docs/tls.md) with a certificate from a CA made for the run.
  ServerProcess(const std::string& binary, const std::string& data_dir, uint16_t port, bool keep_data = false,
                bool tls = false);
  // SIGTERM, wait for the exit, then remove the data directory unless kept (scratch
  // for one run; removing it earlier would pull files from under the running server).
  ~ServerProcess();
  pid_t pid() const { return pid_; }
  uint16_t port() const { return port_; }
  const std::string& data_dir() const { return data_dir_; }
  std::string url() const { return (tls_ ? "wss://127.0.0.1:" : "ws://127.0.0.1:") + std::to_string(port_); }
  // How its clients reach it over TLS, or null.
  const client::TlsOptions* tls() const { return tls_ ? &*tls_ : nullptr; }

 private:
  pid_t pid_ = -1;
  uint16_t port_;
  std::string data_dir_;
  bool keep_data_;
  std::optional<client::TlsOptions> tls_;
  std::string pki_dir_;
};

}  // namespace buzz::load
