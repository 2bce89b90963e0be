// Relay-URL helpers; see relay_url.h.
#include "server/common/relay_url.h"

#include <cctype>
#include <optional>

namespace buzz::server {
namespace {

struct UrlParts {
  std::string scheme, host, port, path;  // scheme and host lowercased
};

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_digits(std::string_view s) {
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// A host name or IPv4 address (RFC 3986 reg-name, without sub-delims), or the
// inside of an IPv6 literal. Anything else is not a URL we compare by parts.
bool is_host(std::string_view s, bool ipv6) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
              (ipv6 ? c == ':' : (c == '-' || c == '_' || c == '~' || c == '%'));
    if (!ok) return false;
  }
  return true;
}

std::optional<UrlParts> split_url(std::string_view url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return std::nullopt;
  UrlParts p;
  p.scheme = lowercase(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end + 3);
  size_t path_start = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_start);
  if (path_start != std::string_view::npos) p.path = std::string(rest.substr(path_start));
  if (authority.empty()) return std::nullopt;
  bool ipv6 = authority.front() == '[';
  std::string_view host, rest_of_authority;
  if (ipv6) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    rest_of_authority = authority.substr(close + 1);
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    rest_of_authority = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
  }
  if (!rest_of_authority.empty()) {
    if (rest_of_authority.front() != ':' || !is_digits(rest_of_authority.substr(1))) return std::nullopt;
    p.port = std::string(rest_of_authority.substr(1));
  }
  if (!is_host(host, ipv6)) return std::nullopt;
  p.host = lowercase(host);
  return p;
}

}  // namespace

std::string normalize_relay_url(std::string_view url) {
  std::optional<UrlParts> p = split_url(url);
  if (!p) return std::string(url);
  if (p->host == "localhost" || p->host == "::1") p->host = "127.0.0.1";
  const std::string& scheme = p->scheme;
  bool default_port = ((scheme == "ws" || scheme == "http") && p->port == "80") ||
                      ((scheme == "wss" || scheme == "https") && p->port == "443");
  if (default_port) p->port.clear();
  while (!p->path.empty() && p->path.back() == '/') p->path.pop_back();
  std::string out = scheme + "://" + (p->host.find(':') != std::string::npos ? "[" + p->host + "]" : p->host);
  if (!p->port.empty()) out += ":" + p->port;
  return out + p->path;
}

std::string url_host(std::string_view url) {
  std::optional<UrlParts> p = split_url(url);
  return p ? p->host : std::string();
}

}  // namespace buzz::server
