// Health: the probes of docs/reference/rest-api.md §3.16, answered on the main port and on
// the health port (which alone serves /_status). Any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "net/http.h"

namespace buzz::server {

class Health {
 public:
  // `storage`: what readiness names as the store, "rocksdb" or "postgres".
  explicit Health(std::string_view storage = "rocksdb");
  // The answer for a probe path, or nullopt if `path` is not one.
  std::optional<net::HttpResponse> check(std::string_view path, bool health_port) const;
  // SIGTERM handling began: readiness answers 503 from now until exit.
  void begin_shutdown() { shutting_down_.store(true, std::memory_order_relaxed); }

 private:
  const std::string ready_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::atomic<bool> shutting_down_{false};
};

}  // namespace buzz::server
