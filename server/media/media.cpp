// The media area: its routes, and the services it is handed; see media.h.
#include "server/media/media.h"

#include "server/common/api_error.h"

namespace buzz::server {

Media::Media(Options options, const Services& s)
    : options_(std::move(options)),
      blobs_(s.blobs),
      membership_(s.membership),
      tokens_(s.tokens),
      gatekeeper_(s.gatekeeper),
      throttle_(s.throttle),
      writer_(s.writer),
      stats_(s.stats) {}

// The media area (media.md §1): uploads and blobs, and 404 / 405 for the
// Blossom routes Buzz leaves out (list, delete, mirror, the BUD-06 preflight).
net::HttpResponse Media::route(const net::HttpRequest& req) {
  std::string_view name = std::string_view(req.path).substr(std::string_view("/media/").size());
  if (name == "upload") return req.method == "PUT" ? upload(req) : api_error(405, "method not allowed");
  if (name.empty() || name.find('/') != std::string_view::npos) return api_error(404, "not found");
  if (req.method != "GET" && req.method != "HEAD") return api_error(405, "method not allowed");
  return serve(req, name);
}

}  // namespace buzz::server
