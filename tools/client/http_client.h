// HTTP/1.1 to a relay: one reader of responses (the status line, the
// headers, a Content-Length, chunked or read-to-the-end body) behind a
// one-shot call with a deadline (the end-to-end tests) and a keep-alive
// connection (the load tool on loopback; the agent CLI to an http:// relay,
// by name and within deadlines, tools/cli/relay_http.h). Never used by the
// server.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// One keep-alive connection: requests are written and their answers read
// back in order. Without a deadline every call blocks (load runs against a
// relay that answers); with one, a send or read that reaches it fails. A
// body goes as application/json unless the headers name a Content-Type.
class HttpClient {
 public:
  using Deadline = std::chrono::steady_clock::time_point;

  // To 127.0.0.1:port. Throws std::runtime_error if it cannot connect.
  explicit HttpClient(uint16_t port);
  // To host (a name or an address literal) and port, each of its addresses
  // in turn until one takes the connection before `deadline`. Throws
  // std::runtime_error with the reason (the name did not resolve, refused,
  // timed out). `authority` is the Host header's value.
  HttpClient(const std::string& host, uint16_t port, const std::string& authority, Deadline deadline);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Each send and read from now on fails at `deadline`; nullopt: they block.
  void set_deadline(std::optional<Deadline> deadline) { deadline_ = deadline; }
  // Writes one request; false if the connection failed (error() says why).
  bool send(const std::string& method, const std::string& target, const HttpHeaders& headers = {},
            const std::string& body = "");
  // The next answer; status 0 if the connection ended first, the deadline
  // passed or the answer was malformed (error() says which).
  HttpReply read();
  HttpReply call(const std::string& method, const std::string& target, const HttpHeaders& headers = {},
                 const std::string& body = "") {
    return send(method, target, headers, body) ? read() : HttpReply{};
  }
  // Why the last send or read failed.
  const std::string& error() const { return error_; }
  // Whether another request may go on this connection: the server has not
  // closed it, nor said it would (Connection: close, a body read to the
  // end), nor sent anything unasked since the last answer.
  bool reusable() const;

 private:
  bool wait_for(short events);  // until the fd is ready or the deadline passes
  bool fill();                  // more bytes into buffer_; false at the end
  bool read_body(HttpReply* reply, size_t body_start);

  int fd_ = -1;
  std::string authority_;  // the Host header
  std::string buffer_;     // bytes read past the previous answer
  std::optional<Deadline> deadline_;
  bool closing_ = false;   // the server ends the connection after this answer
  bool ended_ = false;     // it has: recv saw the end of the stream
  std::string error_;
};

// The pieces http_call (http_call.cpp) shares with HttpClient: the request
// line, Host, `headers` and Content-Length of a head the caller ends; and
// the status and headers of the response `bytes` begins with, read into
// *reply, returning where its body starts (npos while the head is incomplete).
std::string request_head(const std::string& method, const std::string& target, const std::string& authority,
                         const HttpHeaders& headers, const std::string& body);
size_t parse_response_head(std::string_view bytes, HttpReply* reply);

}  // namespace buzz::client
