// OutboundHttp: the one HTTP request of a call_webhook step (docs/reference/workflows.md
// §9.5 run time), through libcurl. The host is resolved once here and every
// address checked; curl then connects only to the first address checked
// (CURLOPT_RESOLVE pins it, so DNS cannot change between check and connect),
// while TLS SNI and Host still name the host. Redirects are not followed, the
// whole request has one deadline, and the body is cut off past the size cap.
//
// Blocking: runs on the run's own thread. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/result.h"

namespace buzz::server {

class OutboundHttp {
 public:
  struct Options {
    uint64_t timeout_ms = 10000;
    size_t max_body_bytes = 1048576;
    // Hosts the operator allows although they are internal (an exact host
    // string, e.g. "127.0.0.1" or "hooks.internal"): BUZZ_WORKFLOW_WEBHOOK_ALLOW_HOSTS.
    std::vector<std::string> allow_hosts;
  };
  struct Request {
    std::string method = "POST";
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    uint64_t timeout_ms = 0;  // 0 = the option's; else the lower of the two
    size_t max_body_bytes = 0;  // 0 = the option's; else the lower of the two
    bool truncate = false;      // past the cap: the first bytes, not an error (a page's head)
    bool binary = false;        // the body's bytes as they came (an image), not made UTF-8
    std::string user_agent = "buzz-workflows";
  };
  struct Response {
    long status = 0;
    std::string body;  // UTF-8, invalid sequences replaced by U+FFFD (unless binary)
    std::string content_type, location;  // the headers, "" when absent
  };

  explicit OutboundHttp(Options options);
  ~OutboundHttp();

  // The response, or "webhook error: …".
  engine::Result<Response> send(const Request& request) const;
  const Options& options() const { return options_; }

 private:
  Options options_;
};

// Valid UTF-8, each invalid sequence replaced by U+FFFD.
std::string sanitize_utf8(std::string_view bytes);

}  // namespace buzz::server
