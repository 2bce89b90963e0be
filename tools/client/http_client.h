// HTTP/1.1 to a relay on loopback, for the end-to-end tests and the load tool:
// one reader of responses (the status line, the headers, a Content-Length
// body) behind a one-shot call with a deadline and a keep-alive connection.
// Never used by the server; the agent CLI has its own client (libcurl).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace buzz::client {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;
struct TlsOptions;  // ws_client.h

struct HttpReply {
  int status = 0;  // 0: no answer (the connection failed or timed out)
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
};

// One request to 127.0.0.1:port on a connection of its own (Connection:
// close), answered within timeout_ms or not at all (status 0); with `tls`, over https.
HttpReply http_call(uint16_t port, const std::string& method, const std::string& target, const HttpHeaders& headers = {},
                    const std::string& body = "", int timeout_ms = 5000, const TlsOptions* tls = nullptr);

// One keep-alive connection to 127.0.0.1:port: requests are written and their
// answers read back in order. Blocking, without a deadline: for load runs
// against a relay that answers. A body goes as application/json.
class HttpClient {
 public:
  // Throws std::runtime_error if it cannot connect.
  explicit HttpClient(uint16_t port);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Writes one request; false if the connection failed.
  bool send(const std::string& method, const std::string& target, const HttpHeaders& headers = {},
            const std::string& body = "");
  // The next answer; status 0 if the connection ended first.
  HttpReply read();
  HttpReply call(const std::string& method, const std::string& target, const HttpHeaders& headers = {},
                 const std::string& body = "") {
    return send(method, target, headers, body) ? read() : HttpReply{};
  }

 private:
  int fd_ = -1;
  uint16_t port_;
  std::string buffer_;  // bytes read past the previous answer
};

}  // namespace buzz::client
