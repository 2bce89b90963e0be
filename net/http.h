// HTTP/1.1 requests and responses: just what the relay's listener needs
// (GET/HEAD/POST/PUT/DELETE/OPTIONS with Content-Length bodies, keep-alive,
// the WebSocket upgrade). Loop thread only; no allocation beyond the request.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace buzz::net {

inline constexpr size_t kMaxHeaderBytes = 16 * 1024;

struct HttpRequest {
  std::string method;
  std::string target;  // path plus query, as sent
  std::string path;    // target without the query
  std::string query;   // after '?', without it
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  std::string body;
  bool keep_alive = true;
  std::string peer;    // remote address, "ip:port"

  // The first header with this (lowercase) name, or empty.
  std::string_view header(std::string_view name) const;
  // The value of one query parameter (percent-decoded), or empty.
  std::string query_param(std::string_view name) const;
  bool wants_websocket() const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static HttpResponse json(int status, std::string body);
  static HttpResponse text(int status, std::string body);
};

enum class ParseState { kComplete, kNeedMore, kError };

struct ParseOutcome {
  ParseState state;
  size_t consumed = 0;   // bytes of the request when complete
  int error_status = 0;  // 400, 411, 413, 431, 501 when kError
  std::string error;     // what was wrong, for the error response
};

// Parses one request from the front of data. Body limit in bytes.
ParseOutcome parse_request(std::string_view data, size_t max_body, HttpRequest* out);

// Serializes a response; `keep_alive` decides the Connection header.
std::string serialize_response(const HttpResponse& r, bool keep_alive, bool head_only = false);

std::string_view status_text(int status);

}  // namespace buzz::net
