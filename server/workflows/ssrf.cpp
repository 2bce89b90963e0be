// Address rules for outbound webhooks; see ssrf.h.
#include "server/workflows/ssrf.h"
#include "engine/text.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>

#include <algorithm>
#include <cstring>
#include <cctype>
#include <memory>

namespace buzz::server {
namespace {

bool in_v4(const uint8_t* a, uint8_t b0, uint8_t b1, int prefix) {
  const uint32_t addr = uint32_t(a[0]) << 24 | uint32_t(a[1]) << 16 | uint32_t(a[2]) << 8 | a[3];
  const uint32_t net = uint32_t(b0) << 24 | uint32_t(b1) << 16;
  const uint32_t mask = prefix == 0 ? 0 : ~uint32_t(0) << (32 - prefix);
  return (addr & mask) == (net & mask);
}

bool private_v4(const uint8_t* a) {
  return in_v4(a, 0, 0, 8)         // unspecified, "this network"
         || in_v4(a, 127, 0, 8)    // loopback
         || in_v4(a, 10, 0, 8)     // private
         || in_v4(a, 172, 16, 12)  // private
         || in_v4(a, 192, 168, 16) // private
         || in_v4(a, 169, 254, 16) // link-local, cloud metadata 169.254.169.254
         || in_v4(a, 100, 64, 10)  // CGNAT
         || in_v4(a, 198, 18, 15)  // benchmarking
         || (a[0] == 192 && a[1] == 0 && a[2] == 0)  // IETF protocol assignments
         || in_v4(a, 224, 0, 4)    // multicast
         || in_v4(a, 240, 0, 4);   // reserved, broadcast 255.255.255.255
}

struct CurlUrl {
  CURLU* h = curl_url();
  ~CurlUrl() { curl_url_cleanup(h); }
  std::optional<std::string> part(CURLUPart what) const {
    char* out = nullptr;
    if (curl_url_get(h, what, &out, 0) != CURLUE_OK) return std::nullopt;
    std::string s(out);
    curl_free(out);
    return s;
  }
};

}  // namespace

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<IpAddress> parse_ip_literal(std::string_view host) {
  std::string h(host);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (size_t zone = h.find('%'); zone != std::string::npos) h = h.substr(0, zone);  // fe80::1%eth0
  IpAddress ip;
  if (inet_pton(AF_INET6, h.c_str(), ip.bytes.data()) == 1) {
    ip.v6 = true;
    return ip;
  }
  // inet_aton takes what clients do: 127.1, 2130706433, 0177.0.0.1, 0x7f.0.0.1.
  in_addr v4{};
  if (!h.empty() && h.find_first_not_of("0123456789abcdefABCDEFxX.") == std::string::npos && inet_aton(h.c_str(), &v4)) {
    std::memcpy(ip.bytes.data(), &v4.s_addr, 4);
    return ip;
  }
  return std::nullopt;
}

bool is_private_address(const IpAddress& ip) {
  const uint8_t* b = ip.bytes.data();
  if (!ip.v6) return private_v4(b);
  const bool zero_head = std::all_of(b, b + 10, [](uint8_t x) { return x == 0; });
  if (zero_head && b[10] == 0xff && b[11] == 0xff) return private_v4(b + 12);  // ::ffff:a.b.c.d
  if (zero_head && b[10] == 0 && b[11] == 0) {
    // ::, ::1, and the deprecated IPv4-compatible ::a.b.c.d: all refused.
    return true;
  }
  static constexpr uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b};  // 64:ff9b::/96
  if (std::equal(b, b + 12, kNat64)) return private_v4(b + 12);
  if ((b[0] & 0xfe) == 0xfc) return true;                  // fc00::/7 ULA
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return true;  // fe80::/10 link-local
  if (b[0] == 0xff) return true;                           // ff00::/8 multicast
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return true;  // 2001:db8::/32
  if (b[0] == 0x20 && b[1] == 0x02) return private_v4(b + 2);                     // 6to4 2002:a.b.c.d::/48
  return false;
}

std::optional<std::vector<IpAddress>> resolve_host(const std::string& host, std::string* error) {
  std::string h = host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(h.c_str(), "80", &hints, &res); rc != 0) {
    *error = gai_strerror(rc);
    return std::nullopt;
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(res, freeaddrinfo);
  std::vector<IpAddress> out;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    IpAddress ip;
    if (ai->ai_family == AF_INET) {
      std::memcpy(ip.bytes.data(), &reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr, 4);
    } else if (ai->ai_family == AF_INET6) {
      ip.v6 = true;
      std::memcpy(ip.bytes.data(), &reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr, 16);
    } else {
      continue;
    }
    out.push_back(ip);
  }
  return out;
}

bool host_allowed(std::string_view host, const std::vector<std::string>& allow_hosts) {
  const std::string h = engine::lower(host);
  return std::any_of(allow_hosts.begin(), allow_hosts.end(), [&](const std::string& a) { return engine::lower(a) == h; });
}

std::optional<std::string> check_webhook_url(std::string_view url, std::string_view step_id,
                                             const std::vector<std::string>& allow_hosts, std::string* resolve_later) {
  if (resolve_later) resolve_later->clear();
  const std::string step = "step '" + std::string(step_id) + "'";
  CurlUrl u;
  const std::string text(url);
  if (CURLUcode rc = curl_url_set(u.h, CURLUPART_URL, text.c_str(), CURLU_NON_SUPPORT_SCHEME); rc != CURLUE_OK) {
    return "invalid webhook URL in " + step + ": " + curl_url_strerror(rc);
  }
  const std::string scheme = engine::lower(u.part(CURLUPART_SCHEME).value_or(""));
  if (scheme != "http" && scheme != "https") {
    return "webhook URL scheme '" + scheme + "' not allowed in " + step + " (only http/https)";
  }
  const std::string host = engine::lower(u.part(CURLUPART_HOST).value_or(""));
  if (host.empty()) return "invalid webhook URL in " + step + ": empty host";
  if (host_allowed(host, allow_hosts)) return std::nullopt;
  static const char* kLoopback[] = {"localhost", "127.0.0.1", "::1", "[::1]", "::", "[::]"};
  if (std::find(std::begin(kLoopback), std::end(kLoopback), host) != std::end(kLoopback)) {
    return "webhook URL in " + step + " targets loopback address";
  }
  if (host == "169.254.169.254" || host == "metadata.google.internal") {
    return "webhook URL in " + step + " targets cloud metadata endpoint";
  }
  if (auto ip = parse_ip_literal(host)) {
    if (is_private_address(*ip)) return "webhook URL in " + step + " targets private/internal network";
    return std::nullopt;
  }
  if (resolve_later) {
    *resolve_later = host;
    return std::nullopt;
  }
  return check_webhook_host(host, step_id);
}

std::optional<std::string> check_webhook_host(const std::string& host, std::string_view step_id) {
  const std::string step = "step '" + std::string(step_id) + "'";
  std::string error;
  auto addresses = resolve_host(host, &error);
  if (!addresses || addresses->empty()) return "webhook URL in " + step + " hostname could not be resolved";
  for (const IpAddress& ip : *addresses) {
    if (is_private_address(ip)) return "webhook URL in " + step + " resolves to private/internal address";
  }
  return std::nullopt;
}

}  // namespace buzz::server
