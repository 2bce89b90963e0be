// CorsPolicy: which browser origins may read the relay's HTTP answers
// (docs/reference/rest-api.md §0, BUZZ_CORS_ORIGINS). Empty configuration allows every
// origin; a comma list allows exactly those; a list with nothing usable in it
// allows none (fail closed rather than open on a typo).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "net/http.h"

namespace buzz::server {

class CorsPolicy {
 public:
  // allow_pubkey_header: the preflight also allows X-Pubkey (the original's
  // development authentication, when the relay takes it).
  explicit CorsPolicy(std::string_view configured = {}, bool allow_pubkey_header = false);

  // Adds the Access-Control-Allow-Origin header the request's Origin earns.
  void apply(std::string_view origin, net::HttpResponse& response) const;
  // The answer to a preflight (OPTIONS) request.
  net::HttpResponse preflight(std::string_view origin) const;

 private:
  bool any_ = true;
  bool allow_pubkey_header_ = false;
  std::vector<std::string> origins_;  // lowercased, without a trailing slash
};

}  // namespace buzz::server
