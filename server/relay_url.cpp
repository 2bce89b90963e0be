// Relay-URL normalization; see relay_url.h.
#include "server/relay_url.h"

#include <cctype>

namespace buzz::server {

std::string normalize_relay_url(std::string_view url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return std::string(url);
  std::string scheme(url.substr(0, scheme_end));
  for (char& c : scheme) c = char(std::tolower(static_cast<unsigned char>(c)));
  std::string_view rest = url.substr(scheme_end + 3);
  size_t path_start = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_start);
  std::string path(path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start));
  if (authority.empty()) return std::string(url);

  std::string host;
  std::string port;
  if (authority.front() == '[') {  // IPv6 literal
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::string(url);
    host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size() && authority[close + 1] == ':') port = std::string(authority.substr(close + 2));
  } else {
    size_t colon = authority.rfind(':');
    host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = std::string(authority.substr(colon + 1));
  }
  for (char& c : host) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (host == "localhost" || host == "::1") host = "127.0.0.1";
  bool default_port = ((scheme == "ws" || scheme == "http") && port == "80") ||
                      ((scheme == "wss" || scheme == "https") && port == "443");
  if (default_port) port.clear();
  while (!path.empty() && path.back() == '/') path.pop_back();
  std::string out = scheme + "://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host);
  if (!port.empty()) out += ":" + port;
  return out + path;
}

}  // namespace buzz::server
