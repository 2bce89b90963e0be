// http_call (http_client.h): one request on a connection of its own, over
// http_request (ws_client.h), which speaks TLS when asked. Apart from
// http_client.cpp so that a program reading HTTP without TLS (the `buzz`
// front binary) does not link OpenSSL's libssl.
#include "tools/client/http_client.h"
#include "tools/client/ws_client.h"

namespace buzz::client {

HttpReply http_call(uint16_t port, const std::string& method, const std::string& target, const HttpHeaders& headers,
                    const std::string& body, int timeout_ms, const TlsOptions* tls) {
  const std::string authority = "127.0.0.1:" + std::to_string(port);
  const std::string request = request_head(method, target, authority, headers, body) + "Connection: close\r\n\r\n" + body;
  HttpReply reply;
  const auto raw = http_request("127.0.0.1", port, request, timeout_ms, tls);
  if (!raw) return reply;
  const size_t body_start = parse_response_head(*raw, &reply);
  if (body_start != std::string::npos) reply.body = raw->substr(body_start);
  return reply;
}

}  // namespace buzz::client
