// RelayHttp: the CLI's HTTP requests to the relay, through libcurl. One handle
// for the whole run, so an auto-mint and the command's own request share one
// keep-alive connection. Timeouts per §B.1: 5 s to connect, 10 s per request.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace buzz::cli {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpAnswer {
  long status = 0;
  std::string body;
};

class RelayHttp {
 public:
  RelayHttp();
  ~RelayHttp();
  RelayHttp(const RelayHttp&) = delete;
  RelayHttp& operator=(const RelayHttp&) = delete;

  // Any answer the relay gives comes back, whatever its status; a failure to
  // reach it (connect, DNS, timeout) throws network_error.
  HttpAnswer call(const std::string& method, const std::string& url, const Headers& headers,
                  const std::string& body = "");

 private:
  void* curl_;  // CURL*, kept out of this header
};

}  // namespace buzz::cli
