// HttpClient: one keep-alive HTTP/1.1 connection for the load tool's REST
// scenarios. Blocking, Content-Length bodies only (what the relay sends).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace buzz::load {

struct HttpAnswer {
  int status = 0;  // 0: the connection failed
  std::string body;
};

class HttpClient {
 public:
  explicit HttpClient(uint16_t port);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Writes one request; answers come back in order through read().
  bool send(const std::string& method, const std::string& target,
            const std::vector<std::pair<std::string, std::string>>& headers = {}, const std::string& body = "");
  HttpAnswer read();
  HttpAnswer call(const std::string& method, const std::string& target,
                  const std::vector<std::pair<std::string, std::string>>& headers = {}, const std::string& body = "") {
    return send(method, target, headers, body) ? read() : HttpAnswer{};
  }

 private:
  int fd_ = -1;
  std::string buffer_;  // bytes read past the previous answer
};

}  // namespace buzz::load
