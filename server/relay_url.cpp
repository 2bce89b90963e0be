// Relay-URL helpers; see relay_url.h.
#include "server/relay_url.h"

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
  if (authority.front() == '[') {  // IPv6 literal
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    p.host = lowercase(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') p.port = std::string(authority.substr(close + 2));
  } else {
    size_t colon = authority.rfind(':');
    p.host = lowercase(authority.substr(0, colon));
    if (colon != std::string_view::npos) p.port = std::string(authority.substr(colon + 1));
  }
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
