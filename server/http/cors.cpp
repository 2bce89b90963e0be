#include "server/http/cors.h"

#include <algorithm>
#include <cctype>

namespace buzz::server {
namespace {

std::string normalized(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '/')) s.remove_suffix(1);
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

bool usable(const std::string& origin) {
  return (origin.starts_with("http://") || origin.starts_with("https://")) && origin.find('/', 8) == std::string::npos;
}

}  // namespace

CorsPolicy::CorsPolicy(std::string_view configured, bool allow_pubkey_header) : allow_pubkey_header_(allow_pubkey_header) {
  if (normalized(configured).empty()) return;
  any_ = false;
  for (size_t start = 0; start <= configured.size();) {
    size_t end = std::min(configured.find(',', start), configured.size());
    std::string origin = normalized(configured.substr(start, end - start));
    if (usable(origin)) origins_.push_back(std::move(origin));
    start = end + 1;
  }
}

void CorsPolicy::apply(std::string_view origin, net::HttpResponse& r) const {
  if (any_) {
    r.headers.emplace_back("Access-Control-Allow-Origin", "*");
    return;
  }
  if (origin.empty() || std::find(origins_.begin(), origins_.end(), normalized(origin)) == origins_.end()) return;
  r.headers.emplace_back("Access-Control-Allow-Origin", std::string(origin));
  r.headers.emplace_back("Vary", "Origin");
}

net::HttpResponse CorsPolicy::preflight(std::string_view origin) const {
  net::HttpResponse r{204, "", "", {}, {}};
  apply(origin, r);
  if (r.headers.empty()) return r;  // a refused origin learns nothing more
  r.headers.emplace_back("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
  std::string headers = "Authorization, Content-Type, Accept, X-Auth-Token, X-SHA-256, X-Auth-Tag";
  if (allow_pubkey_header_) headers += ", X-Pubkey";
  r.headers.emplace_back("Access-Control-Allow-Headers", std::move(headers));
  r.headers.emplace_back("Access-Control-Max-Age", "600");
  return r;
}

}  // namespace buzz::server
