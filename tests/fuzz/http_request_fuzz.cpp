// Fuzz target: the bytes a client sends before a WebSocket upgrade or a REST call.
//
// Invariants beyond "no crash": a request the parser accepts is one that a
// proxy in front of the relay reads the same way (RFC 9112 §3, §5, §6.3):
// its method is a token, its target is visible ASCII, every header name is a
// token, no header value holds CR, LF or NUL, and the body is exactly the one
// Content-Length says. Consumed byte counts never exceed the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/chunked_body.h"
#include "net/http.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_tchar(c)) return false;
  return true;
}

bool is_visible_ascii(std::string_view s) {
  for (char c : s)
    if (c <= 0x20 || c >= 0x7f) return false;
  return true;
}

bool has_line_break_or_nul(std::string_view s) { return s.find_first_of(std::string_view("\r\n\0", 3)) != s.npos; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  buzz::net::HttpRequest req;
  auto head = buzz::net::parse_head(bytes, &req);
  FUZZ_CHECK(head.consumed <= bytes.size());
  if (head.state == buzz::net::ParseState::kError) FUZZ_CHECK(head.error_status >= 400 && !head.error.empty());
  if (head.state != buzz::net::ParseState::kComplete) return 0;

  FUZZ_CHECK(is_token(req.method));
  FUZZ_CHECK(!req.target.empty() && req.target[0] == '/' && is_visible_ascii(req.target));
  for (const auto& [name, value] : req.headers) {
    FUZZ_CHECK(is_token(name));
    FUZZ_CHECK(!has_line_break_or_nul(value));
  }
  (void)req.query_param("limit");
  (void)req.wants_websocket();

  // A chunked body (a spooled request's, net/chunked_body.h): every byte
  // consumed is accounted for, and the body is never longer than the input.
  if (req.chunked) {
    buzz::net::ChunkedDecoder decoder;
    std::string decoded;
    size_t used = 0;
    auto status = decoder.feed(bytes.substr(head.consumed), &used, &decoded);
    FUZZ_CHECK(status == buzz::net::ChunkedDecoder::Status::kError || used <= bytes.size() - head.consumed);
    FUZZ_CHECK(decoded.size() <= bytes.size() - head.consumed);
  }

  auto body = buzz::net::parse_body(bytes, head.consumed, 1 << 16, &req);
  FUZZ_CHECK(body.consumed <= bytes.size());
  if (body.state == buzz::net::ParseState::kComplete) {
    FUZZ_CHECK(req.body.size() == req.content_length);
    FUZZ_CHECK(body.consumed == head.consumed + req.content_length);
  }
  return 0;
}
