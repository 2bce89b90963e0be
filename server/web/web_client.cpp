// See web_client.h. The page and its assets change only with the binary, so
// they are revalidated by ETag (no-cache) rather than cached blind: an
// upgraded relay never serves a stale bundle.
#include "server/web/web_client.h"

#include "server/web/web_assets.h"

namespace buzz::server {
namespace {

bool wants_html(const net::HttpRequest& req) { return req.header("accept").find("text/html") != std::string_view::npos; }

// Scripts, styles and images from this origin only (uploaded images are on
// /media/ here; blob: is the upload preview); the only connection is the
// relay itself over HTTP and its WebSocket on the same host.
// A Host that is not a plain host[:port] gets no WebSocket source rather
// than a way to write into the policy.
std::string content_security_policy(std::string_view host) {
  bool plain = !host.empty() && host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]") ==
                                    std::string_view::npos;
  std::string ws = plain ? " ws://" + std::string(host) + " wss://" + std::string(host) : "";
  return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
         "connect-src 'self'" + ws + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
}

}  // namespace

std::optional<net::HttpResponse> web_client_response(const net::HttpRequest& req) {
  const WebAsset* asset = nullptr;
  if (req.path == "/" && wants_html(req)) {
    asset = find_web_asset("/index.html");
  } else if (req.path.starts_with("/app/")) {
    asset = find_web_asset(req.path);
    if (!asset) return net::HttpResponse::json(404, R"({"error":"not found"})");
  }
  if (!asset) return std::nullopt;

  net::HttpResponse r;
  r.headers.emplace_back("ETag", std::string(asset->etag));
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (req.path == "/") {
    r.headers.emplace_back("Content-Security-Policy", content_security_policy(req.header("host")));
    r.headers.emplace_back("Vary", "Accept");
  }
  if (req.header("if-none-match") == asset->etag) {
    r.status = 304;
    r.content_type.clear();
    return r;
  }
  r.content_type = std::string(asset->content_type);
  r.body = std::string(asset->body);
  return r;
}

}  // namespace buzz::server
