// The operator's side ports (docs/reference/rest-api.md §3.16, docs/reference/compat-backends.md §6.1): the
// health port for an orchestrator's probes and the metrics port for a
// Prometheus scraper, apart from the public port so that a firewall can keep
// them private. They see a request every few seconds, so one blocking thread
// serves them all: one request per connection, every read and write bounded by
// a short timeout, so a peer that stalls holds the thread for that long at most.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/result.h"
#include "net/http.h"

namespace buzz::server {

class OpsListener {
 public:
  // Answers a GET or HEAD; nullopt is a 404.
  using Handler = std::function<std::optional<net::HttpResponse>(const net::HttpRequest&)>;
  struct Endpoint {
    std::string name;  // "health", "metrics": for errors and the start-up line
    uint16_t port;
    Handler handler;
  };

  // Binds every endpoint on host (start-up only); the error names the one
  // that could not be bound.
  static engine::Result<std::unique_ptr<OpsListener>> open(const std::string& host, std::vector<Endpoint> endpoints);
  ~OpsListener();
  OpsListener(const OpsListener&) = delete;
  OpsListener& operator=(const OpsListener&) = delete;

  void start();
  // Finishes the request in hand, then closes the ports.
  void stop();

 private:
  OpsListener() = default;
  void run();
  void serve(int fd, const Handler& handler) const;

  std::vector<Endpoint> endpoints_;
  std::vector<int> listen_fds_;  // one per endpoint
  int stop_fd_ = -1;             // an eventfd: written once by stop()
  std::thread thread_;
};

}  // namespace buzz::server
