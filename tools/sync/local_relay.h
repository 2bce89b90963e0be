// LocalRelay: `buzz serve` on a data directory, on a free loopback port, for
// as long as a sync needs it: what `buzz sync --data-dir DIR` writes through,
// so the events go through the same ingest as any client's (the store allows
// one process, so the appliance's own relay must not be running on DIR).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "engine/result.h"

namespace buzz::sync {

class LocalRelay {
 public:
  // Starts this binary's `serve` on `data_dir` and returns at once: the sync
  // reconciles with the source while the relay opens its store.
  static engine::Result<std::unique_ptr<LocalRelay>> spawn(const std::string& data_dir);
  // Waits until it accepts WebSockets (30 s at most).
  engine::Status wait_ready();
  ~LocalRelay();  // SIGTERM, then waits for the exit
  LocalRelay(const LocalRelay&) = delete;
  LocalRelay& operator=(const LocalRelay&) = delete;

  const std::string& url() const { return url_; }

 private:
  LocalRelay(pid_t pid, uint16_t port, std::string data_dir, std::string url)
      : pid_(pid), port_(port), data_dir_(std::move(data_dir)), url_(std::move(url)) {}
  pid_t pid_;
  uint16_t port_;
  std::string data_dir_;
  std::string url_;
};

}  // namespace buzz::sync
