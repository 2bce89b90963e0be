// HTTP/1.1 parsing and responses; see http.h.
#include "net/http.h"

#include <algorithm>
#include <charconv>

namespace buzz::net {
namespace {

constexpr const char* kNoChunked = "chunked request bodies are not supported here; send Content-Length";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool contains_token(std::string_view value, std::string_view token) {
  std::string v = lower(value);
  size_t pos = 0;
  while (pos <= v.size()) {
    size_t comma = v.find(',', pos);
    if (comma == std::string::npos) comma = v.size();
    if (trim(std::string_view(v).substr(pos, comma - pos)) == token) return true;
    pos = comma + 1;
  }
  return false;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%' && i + 2 < s.size() && hex_digit_value(s[i + 1]) >= 0 && hex_digit_value(s[i + 2]) >= 0) {
      out.push_back(char(hex_digit_value(s[i + 1]) * 16 + hex_digit_value(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

ParseOutcome fail(int status, std::string why) { return {ParseState::kError, 0, status, std::move(why)}; }

// RFC 9110 §5.6.2 token characters: methods and header names.
bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) return false;
  }
  return true;
}

// A request target is visible ASCII: no spaces, controls or raw 8-bit bytes.
bool is_visible_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// CR, LF and NUL are "invalid and dangerous" in a field value (RFC 9110 §5.5):
// a bare LF that a proxy reads as a line end smuggles a header past us, and
// no value the handlers echo into a response header may end that header.
bool has_line_break_or_nul(std::string_view s) { return s.find_first_of(std::string_view("\r\n\0", 3)) != s.npos; }

}  // namespace

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}


std::string_view HttpRequest::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return {};
}

std::string HttpRequest::query_param(std::string_view name) const {
  std::string_view q = query;
  while (!q.empty()) {
    size_t amp = q.find('&');
    std::string_view pair = q.substr(0, amp);
    size_t eq = pair.find('=');
    if (percent_decode(pair.substr(0, eq)) == name) {
      return eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    q.remove_prefix(amp + 1);
  }
  return {};
}

bool HttpRequest::wants_websocket() const {
  return method == "GET" && contains_token(header("upgrade"), "websocket") &&
         contains_token(header("connection"), "upgrade");
}

bool HttpRequest::expects_continue() const { return contains_token(header("expect"), "100-continue"); }

ParseOutcome parse_head(std::string_view data, HttpRequest* out) {
  size_t end = data.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (data.size() >= kMaxHeaderBytes + 4) return fail(431, "request headers are larger than 16 KiB");
    return {ParseState::kNeedMore, 0, 0, {}};
  }
  if (end > kMaxHeaderBytes) return fail(431, "request headers are larger than 16 KiB");
  std::string_view head = data.substr(0, end);
  size_t line_end = head.find("\r\n");
  std::string_view request_line = head.substr(0, line_end);
  size_t sp1 = request_line.find(' ');
  size_t sp2 = request_line.rfind(' ');
  if (sp1 == std::string_view::npos || sp2 == sp1) return fail(400, "malformed request line");
  std::string_view version = request_line.substr(sp2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return fail(400, "unsupported HTTP version");
  out->method = std::string(request_line.substr(0, sp1));
  out->target = std::string(request_line.substr(sp1 + 1, sp2 - sp1 - 1));
  if (!is_token(out->method)) return fail(400, "malformed request line");
  if (out->target.empty() || out->target[0] != '/') return fail(400, "request target must be an absolute path");
  if (!is_visible_ascii(out->target)) return fail(400, "request target must be visible ASCII (percent-encode the rest)");
  size_t qm = out->target.find('?');
  out->path = out->target.substr(0, qm);
  out->query = qm == std::string::npos ? std::string() : out->target.substr(qm + 1);
  out->headers.clear();
  out->body.clear();

  std::string_view rest = line_end == std::string_view::npos ? std::string_view() : head.substr(line_end + 2);
  while (!rest.empty()) {
    size_t eol = rest.find("\r\n");
    std::string_view line = rest.substr(0, eol);
    size_t colon = line.find(':');
    // No space before the colon either (RFC 9112 §5.1): "Content-Length : 5"
    // is a body to some proxies and a stray header to us.
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) return fail(400, "malformed header line");
    std::string_view value = trim(line.substr(colon + 1));
    if (has_line_break_or_nul(value)) return fail(400, "header value contains CR, LF or NUL");
    out->headers.emplace_back(lower(line.substr(0, colon)), std::string(value));
    if (eol == std::string_view::npos) break;
    rest.remove_prefix(eol + 2);
  }

  std::string_view connection = out->header("connection");
  out->keep_alive = version == "HTTP/1.1" ? !contains_token(connection, "close") : contains_token(connection, "keep-alive");

  // Only a lone "chunked" is understood, and only by a body streamed to a
  // file (body_spool.h); with a Content-Length too it is a smuggling attempt.
  out->chunked = false;
  size_t codings = 0;
  for (const auto& [name, te] : out->headers) codings += name == "transfer-encoding";
  if (codings) {
    if (codings > 1 || lower(out->header("transfer-encoding")) != "chunked") return fail(501, kNoChunked);
    if (!out->header("content-length").empty()) return fail(400, "Content-Length and Transfer-Encoding together");
    out->chunked = true;
  }
  // Every Content-Length must be the same number (RFC 9112 §6.3): two that
  // differ are how a request is smuggled past a proxy that reads the other.
  out->content_length = 0;
  bool seen_length = false;
  for (const auto& [name, cl] : out->headers) {
    if (name != "content-length") continue;
    size_t length = 0;
    auto [p, ec] = std::from_chars(cl.data(), cl.data() + cl.size(), length);
    if (cl.empty() || ec != std::errc() || p != cl.data() + cl.size()) return fail(400, "invalid Content-Length");
    if (seen_length && length != out->content_length) return fail(400, "conflicting Content-Length headers");
    out->content_length = length;
    seen_length = true;
  }
  return {ParseState::kComplete, end + 4, 0, {}};
}

ParseOutcome parse_body(std::string_view data, size_t head_bytes, size_t max_body, HttpRequest* out) {
  if (out->chunked) return fail(501, kNoChunked);
  if (out->content_length > max_body) {
    return fail(413, "request body is larger than " + std::to_string(max_body) + " bytes");
  }
  size_t total = head_bytes + out->content_length;
  if (data.size() < total) return {ParseState::kNeedMore, 0, 0, {}};
  out->body.assign(data.substr(head_bytes, out->content_length));
  return {ParseState::kComplete, total, 0, {}};
}

HttpResponse HttpResponse::json(int status, std::string body) { return {status, "application/json", std::move(body), {}, {}}; }

HttpResponse HttpResponse::text(int status, std::string body) {
  return {status, "text/plain; charset=utf-8", std::move(body), {}, {}};
}

std::string_view status_text(int status) {
  switch (status) {
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 416: return "Range Not Satisfiable";
    case 426: return "Upgrade Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

std::string serialize_response_head(const HttpResponse& r, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + std::string(status_text(r.status)) + "\r\n";
  if (!r.content_type.empty()) out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.content_length.value_or(r.body.size())) + "\r\n";
  for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
  out += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  return out;
}

std::string serialize_response(const HttpResponse& r, bool keep_alive, bool head_only) {
  std::string out = serialize_response_head(r, keep_alive);
  if (!head_only) out += r.body;
  return out;
}

}  // namespace buzz::net
