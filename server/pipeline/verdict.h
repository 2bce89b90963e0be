// Verdict: an event's OK — accepted or not, and why — as the pipeline decides
// it, before it becomes an OK frame (WebSocket) or a status code (HTTP).
#pragma once

#include <cstdint>
#include <string>

namespace buzz::server {

struct Verdict {
  bool accepted = false;
  std::string reason;
  bool busy = false;         // refused for a full writer queue: a NOTICE on WebSocket, 503 over HTTP
  uint64_t retry_after = 0;  // rate-limited: seconds until the window ends (HTTP Retry-After)
};

}  // namespace buzz::server
