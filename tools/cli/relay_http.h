// RelayHttp: the CLI's HTTP requests to the relay. An http:// relay is
// spoken to with the project's own HTTP/1.1 client (tools/client/http_client.h);
// libcurl, loaded on its first use with the ~30 libraries behind it, serves
// https:// and a request the environment sends through a proxy (http_proxy,
// all_proxy: libcurl reads them, and no_proxy). One connection for the whole
// run either way, so an auto-mint and the command's own request share one
// keep-alive connection. Timeouts per §B.1: 5 s to connect, 10 s per request.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace buzz::client {
class HttpClient;
}

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
  HttpAnswer call_plain(const std::string& method, const std::string& url, const Headers& headers, const std::string& body);
  HttpAnswer call_curl(const std::string& method, const std::string& url, const Headers& headers, const std::string& body);

  std::unique_ptr<client::HttpClient> plain_;  // the kept-alive connection to an http:// relay
  std::string plain_authority_;                // whose host[:port] it is
  void* curl_ = nullptr;                       // CURL*, made on libcurl's first request; kept out of this header
};

}  // namespace buzz::cli
