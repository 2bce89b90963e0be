// See web_client.h. The page changes only with the binary, so it is
// revalidated by ETag (no-cache) rather than cached blind: an upgraded relay
// never serves a stale page. The page names its script and style by their
// content hash (app/app-<hash>.js), and those are cached for good (immutable):
// a new build has new names. Each file is sent compressed (brotli, else gzip,
// both made at build time) to a browser that accepts it.
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
  return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src blob:; "
         "connect-src 'self'" + ws + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
}

// Whether Accept-Encoding takes this coding ("gzip, deflate, br"; a ";q=0" refuses it).
bool accepts(std::string_view accept_encoding, std::string_view coding) {
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding = comma == std::string_view::npos ? std::string_view{} : accept_encoding.substr(comma + 1);
    size_t semi = item.find(';');
    std::string_view params = semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1);
    item = item.substr(0, semi);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item != coding) continue;
    size_t q = params.find("q=");
    if (q == std::string_view::npos) return true;
    std::string_view value = params.substr(q + 2);
    value = value.substr(0, value.find_first_of(" ;"));
    return value.find_first_not_of("0.") != std::string_view::npos;  // q=0, q=0.0: refused
  }
  return false;
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

  // The representation: brotli, gzip, or the bytes themselves.
  std::string_view body = asset->body;
  std::string_view coding;
  std::string_view accept_encoding = req.header("accept-encoding");
  if (!asset->brotli.empty() && accepts(accept_encoding, "br")) {
    body = asset->brotli;
    coding = "br";
  } else if (!asset->gzip.empty() && accepts(accept_encoding, "gzip")) {
    body = asset->gzip;
    coding = "gzip";
  }
  const std::string etag = "\"" + std::string(asset->etag) + (coding.empty() ? "" : "-" + std::string(coding)) + "\"";
  const bool immutable = req.path == asset->hashed_path && asset->hashed_path != asset->path;

  net::HttpResponse r;
  r.headers.emplace_back("ETag", etag);
  r.headers.emplace_back("Cache-Control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (req.path == "/") {
    r.headers.emplace_back("Content-Security-Policy", content_security_policy(req.header("host")));
    r.headers.emplace_back("Vary", "Accept, Accept-Encoding");
  } else {
    r.headers.emplace_back("Vary", "Accept-Encoding");
  }
  if (req.header("if-none-match") == etag) {
    r.status = 304;
    r.content_type.clear();
    return r;
  }
  if (!coding.empty()) r.headers.emplace_back("Content-Encoding", std::string(coding));
  r.content_type = std::string(asset->content_type);
  r.body = std::string(body);
  return r;
}

}  // namespace buzz::server
