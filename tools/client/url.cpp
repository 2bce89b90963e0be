// See url.h.
#include "tools/client/url.h"

namespace buzz::client {

std::optional<UrlParts> split_url(std::string_view url, std::string_view scheme) {
  if (!url.starts_with(scheme)) return std::nullopt;
  UrlParts out;
  const size_t end = url.find_first_of("/?#", scheme.size());
  out.authority = url.substr(scheme.size(), end == std::string_view::npos ? std::string_view::npos : end - scheme.size());
  const std::string_view rest = end == std::string_view::npos ? "" : url.substr(end, url.find('#', end) - end);
  out.target = rest.starts_with('/') ? std::string(rest) : "/" + std::string(rest);
  const std::string& a = out.authority;
  if (a.empty() || a.find('@') != std::string::npos) return std::nullopt;
  const bool bracketed = a.front() == '[';
  const size_t host_end = bracketed ? a.find(']') : a.rfind(':');
  if (bracketed && host_end == std::string::npos) return std::nullopt;
  out.host = bracketed ? a.substr(1, host_end - 1) : a.substr(0, host_end);
  if (out.host.empty()) return std::nullopt;
  const size_t colon = a.find(':', bracketed ? host_end : 0);
  if (colon == std::string::npos) return out;
  const std::string port = a.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int n = std::stoi(port);
  if (n < 1 || n > 65535) return std::nullopt;
  out.port = uint16_t(n);
  return out;
}

}  // namespace buzz::client
