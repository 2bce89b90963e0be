// HTTP/1.1 requests and responses: just what the relay's listener needs
// (GET/HEAD/POST/PUT/DELETE/OPTIONS with Content-Length bodies, keep-alive,
// the WebSocket upgrade). Loop thread only; no allocation beyond the request.
//
// A request is read in two steps, so the application can pick the body limit
// (or refuse the request) from the head before any body byte is buffered:
// parse_head, then parse_body with that limit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace buzz::net {

inline constexpr size_t kMaxHeaderBytes = 16 * 1024;

class SpooledBody;

struct HttpRequest {
  std::string method;
  std::string target;  // path plus query, as sent
  std::string path;    // target without the query
  std::string query;   // after '?', without it
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  size_t content_length = 0;  // the body length the head declares
  bool chunked = false;       // Transfer-Encoding: chunked (only a spooled body may be; body_spool.h)
  std::string body;
  // A body the service had streamed to a file (HeadDecision::spool) instead
  // of `body`, which then stays empty.
  std::shared_ptr<SpooledBody> spooled;
  bool keep_alive = true;
  std::string peer;    // remote address, "ip:port"

  // The first header with this (lowercase) name, or empty.
  std::string_view header(std::string_view name) const;
  // The value of one query parameter (percent-decoded), or empty.
  std::string query_param(std::string_view name) const;
  bool wants_websocket() const;
  // Expect: 100-continue: the client waits for a go-ahead before sending the body.
  bool expects_continue() const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // HEAD answers only: the Content-Length a GET would carry, sent without the
  // body (which stays empty). Unset: the body's own length.
  std::optional<size_t> content_length;

  static HttpResponse json(int status, std::string body);
  static HttpResponse text(int status, std::string body);
};

enum class ParseState { kComplete, kNeedMore, kError };

struct ParseOutcome {
  ParseState state;
  size_t consumed = 0;   // bytes of the head (parse_head) or of the whole request (parse_body)
  int error_status = 0;  // 400, 413, 431, 501 when kError
  std::string error;     // what was wrong, for the error response
};

// Parses the request line and headers at the front of data. Complete once the
// blank line has arrived; then `consumed` is the head's length and
// out->content_length the declared body length. The body is not read.
ParseOutcome parse_head(std::string_view data, HttpRequest* out);

// Reads the body of a request whose head (`head_bytes` long) parse_head filled
// in: 501 for a chunked body (only a spooled one may be chunked), 413 at once if the declared length is over max_body, need-more until the
// whole body is in data, else complete with `consumed` = head + body.
ParseOutcome parse_body(std::string_view data, size_t head_bytes, size_t max_body, HttpRequest* out);

// The status line and headers, ending with the blank line; `keep_alive`
// decides the Connection header.
std::string serialize_response_head(const HttpResponse& r, bool keep_alive);
// The head followed by the body (unless head_only).
std::string serialize_response(const HttpResponse& r, bool keep_alive, bool head_only = false);

std::string_view status_text(int status);

// A hex digit's value (either case), or -1.
int hex_digit_value(char c);

}  // namespace buzz::net
