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
  // Starts this binary's `serve` on `data_dir` and waits until it accepts WebSockets.
  static engine::Result<std::unique_ptr<LocalRelay>> start(const std::string& data_dir);
  ~LocalRelay();  // SIGTERM, then waits for the exit
  LocalRelay(const LocalRelay&) = delete;
  LocalRelay& operator=(const LocalRelay&) = delete;

  const std::string& url() const { return url_; }

 private:
  LocalRelay(pid_t pid, std::string url) : pid_(pid), url_(std::move(url)) {}
  pid_t pid_;
  std::string url_;
};

}  // namespace buzz::sync
