// The proxy's admin API (docs/reference/proxy.md §3.1): register, revoke and list guests,
// create invite tokens. Every route needs `Authorization: Bearer <secret>`
// when a secret is configured, compared in constant time.
// Loop thread only.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "net/http.h"
#include "tools/proxy/guest_book.h"

namespace buzz::proxy {

class AdminApi {
 public:
  // `on_revoke` closes the live sessions of a revoked guest.
  AdminApi(GuestBook& book, std::optional<std::string> secret, std::function<void(const std::string&)> on_revoke)
      : book_(book), secret_(std::move(secret)), on_revoke_(std::move(on_revoke)) {}

  // Answers a request under /admin/; nullopt for any other path.
  std::optional<net::HttpResponse> handle(const net::HttpRequest& req, uint64_t now);

 private:
  bool authorized(const net::HttpRequest& req) const;
  net::HttpResponse add_guest(const std::string& body);
  net::HttpResponse remove_guest(const std::string& body);
  net::HttpResponse list_guests() const;
  net::HttpResponse create_invite(const std::string& body, uint64_t now);

  GuestBook& book_;
  std::optional<std::string> secret_;
  std::function<void(const std::string&)> on_revoke_;
};

}  // namespace buzz::proxy
