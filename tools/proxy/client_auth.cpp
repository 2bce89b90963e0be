#include "tools/proxy/client_auth.h"

#include <cctype>
#include <cstdlib>

#include "engine/kind_numbers.h"
#include "engine/signature.h"

namespace buzz::proxy {

std::string normalize_url(std::string_view url) {
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos || sep == 0) return std::string(url);
  std::string scheme(url.substr(0, sep));
  for (char& c : scheme) c = char(std::tolower(uint8_t(c)));
  std::string_view rest = url.substr(sep + 3);
  const size_t path_at = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_at);
  std::string path(path_at == std::string_view::npos ? std::string_view{} : rest.substr(path_at));
  std::string host, port;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::string(url);
    host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return std::string(url);
      port = std::string(authority.substr(close + 2));
    }
  } else {
    const size_t colon = authority.rfind(':');
    host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = std::string(authority.substr(colon + 1));
  }
  if (host.empty()) return std::string(url);
  for (char& c : host) c = char(std::tolower(uint8_t(c)));
  for (char c : port) {
    if (c < '0' || c > '9') return std::string(url);
  }
  if (host == "localhost" || host == "::1") host = "127.0.0.1";
  const bool secure = scheme == "wss" || scheme == "https";
  if (port == (secure ? "443" : "80")) port.clear();
  while (!path.empty() && path.back() == '/') path.pop_back();
  std::string out = scheme + "://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host);
  if (!port.empty()) out += ":" + port;
  return out + path;
}

std::optional<std::string> check_client_auth(const engine::Event& e, const AuthExpectation& x) {
  if (e.kind != kind::kAuth) return "invalid: wrong kind for AUTH";
  bool challenge = false;
  for (const engine::Tag& t : e.tags) {
    if (t.size() >= 2 && t[0] == "challenge" && t[1] == x.challenge) challenge = true;
  }
  if (!challenge) return "invalid: wrong challenge";
  const int64_t skew = int64_t(x.now) - int64_t(e.created_at);
  if (std::llabs(skew) > x.window_secs) return "invalid: auth event timestamp too far from now";
  if (!x.relay_url.empty()) {
    std::string_view tag = e.first_tag_value("relay");
    if (normalize_url(tag) != normalize_url(x.relay_url)) return "invalid: wrong relay";
  }
  std::string reason;
  if (engine::check_event(e, &reason) != engine::EventCheck::kOk) return "invalid: bad signature";
  return std::nullopt;
}

}  // namespace buzz::proxy
