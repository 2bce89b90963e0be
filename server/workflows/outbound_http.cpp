// call_webhook's HTTP request through libcurl; see outbound_http.h.
#include "server/workflows/outbound_http.h"

#include <curl/curl.h>
#include <strings.h>

#include <memory>

#include "server/workflows/ssrf.h"

namespace buzz::server {
namespace {

struct Sink {
  std::string body;
  size_t limit;
  bool overflow = false;
};

size_t on_data(char* data, size_t size, size_t count, void* user) {
  Sink* sink = static_cast<Sink*>(user);
  const size_t n = size * count;
  if (sink->body.size() + n > sink->limit) {
    sink->overflow = true;
    return 0;  // aborts the transfer
  }
  sink->body.append(data, n);
  return n;
}

std::string url_part(CURLU* u, CURLUPart what) {
  char* out = nullptr;
  if (curl_url_get(u, what, &out, CURLU_DEFAULT_PORT) != CURLUE_OK) return {};
  std::string s(out);
  curl_free(out);
  return s;
}

}  // namespace

OutboundHttp::OutboundHttp(Options options) : options_(std::move(options)) { curl_global_init(CURL_GLOBAL_DEFAULT); }
OutboundHttp::~OutboundHttp() { curl_global_cleanup(); }

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t c = uint8_t(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (uint8_t(s[i + k]) & 0xC0) == 0x80;
    if (ok && len > 1) {
      // Overlong forms, surrogates and values past U+10FFFF are invalid too.
      uint32_t cp = c & (0xFF >> (len + 1));
      for (size_t k = 1; k < len; ++k) cp = cp << 6 | (uint8_t(s[i + k]) & 0x3F);
      ok = !((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
             (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF);
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

engine::Result<OutboundHttp::Response> OutboundHttp::send(const Request& request) const {
  auto fail = [](std::string why) { return engine::Error{"webhook error: " + std::move(why)}; };
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), curl_url_cleanup);
  if (CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, request.url.c_str(), CURLU_NON_SUPPORT_SCHEME); rc != CURLUE_OK) {
    return fail(std::string("invalid URL: ") + curl_url_strerror(rc));
  }
  std::string scheme = url_part(u.get(), CURLUPART_SCHEME);
  if (scheme != "http" && scheme != "https") return fail("invalid URL: scheme '" + scheme + "' not allowed (only http/https)");
  const std::string host = url_part(u.get(), CURLUPART_HOST);
  if (host.empty()) return fail("URL has no host");
  const std::string port = url_part(u.get(), CURLUPART_PORT);

  // Resolve once, check every address, connect only to the first one checked.
  std::vector<IpAddress> addresses;
  if (auto literal = parse_ip_literal(host)) {
    addresses.push_back(*literal);
  } else {
    std::string error;
    auto resolved = resolve_host(host, &error);
    if (!resolved) return fail("DNS resolution failed: " + error);
    addresses = std::move(*resolved);
  }
  if (addresses.empty()) return fail("DNS resolution returned no addresses");
  if (!host_allowed(host, options_.allow_hosts)) {
    for (const IpAddress& ip : addresses) {
      if (is_private_address(ip)) {
        return fail("SSRF blocked: '" + host + "' resolved to private/reserved address " + ip.to_string());
      }
    }
  }
  const IpAddress& target = addresses.front();
  std::string bare_host = host;
  if (bare_host.size() >= 2 && bare_host.front() == '[') bare_host = bare_host.substr(1, bare_host.size() - 2);
  const std::string pin = bare_host + ":" + port + ":" + (target.v6 ? "[" + target.to_string() + "]" : target.to_string());

  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return fail("cannot start an HTTP client");
  curl_slist* resolve = curl_slist_append(nullptr, pin.c_str());
  curl_slist* headers = nullptr;
  bool has_content_type = false;
  for (const auto& [k, v] : request.headers) {
    headers = curl_slist_append(headers, (k + ": " + v).c_str());
    has_content_type |= strcasecmp(k.c_str(), "content-type") == 0;
  }
  // No default Content-Type (§9.5), and no Expect: 100-continue round trip.
  if (!has_content_type) headers = curl_slist_append(headers, "Content-Type:");
  headers = curl_slist_append(headers, "Expect:");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> own_resolve(resolve, curl_slist_free_all);
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> own_headers(headers, curl_slist_free_all);

  Sink sink{{}, request.max_body_bytes ? std::min(request.max_body_bytes, options_.max_body_bytes) : options_.max_body_bytes};
  const uint64_t timeout = request.timeout_ms ? std::min(request.timeout_ms, options_.timeout_ms) : options_.timeout_ms;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_CURLU, u.get());
  curl_easy_setopt(c, CURLOPT_RESOLVE, resolve);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // a 3xx is the answer, never followed
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, long(timeout));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");  // a proxy would connect somewhere else than the address checked
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  if (!request.body.empty() || (request.method != "GET" && request.method != "HEAD")) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_USERAGENT, request.user_agent.c_str());
  const CURLcode rc = curl_easy_perform(c);
  if (sink.overflow && !request.truncate) return fail("response body exceeds " + std::to_string(sink.limit) + " byte limit");
  if (rc != CURLE_OK && !sink.overflow) return fail(curl_easy_strerror(rc));
  Response out;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
  auto header = [c](const char* name) {
    curl_header* h = nullptr;
    return curl_easy_header(c, name, 0, CURLH_HEADER, -1, &h) == CURLHE_OK ? std::string(h->value) : std::string();
  };
  out.content_type = header("Content-Type");
  out.location = header("Location");
  out.body = request.binary ? std::move(sink.body) : sanitize_utf8(sink.body);
  return out;
}

}  // namespace buzz::server
