// Plain HTTP on the relay's port: NIP-11 (protocol.md §15), health checks,
// Prometheus metrics, the REST API routes (handlers/api_*.cpp) and media
// (handlers/media_*.cpp). Every body is limited to 1 MiB except an upload's.
#include "engine/canonical.h"
#include "engine/event_store.h"
#include "server/relay.h"

namespace buzz::server {
namespace {

net::HttpResponse with_cors(net::HttpResponse r) {
  r.headers.emplace_back("Access-Control-Allow-Origin", "*");
  return r;
}

}  // namespace

net::HttpResponse api_error(int status, std::string_view message) {
  std::string body = "{\"error\":";
  engine::append_json_string(body, message);
  return net::HttpResponse::json(status, body + "}");
}

std::string Relay::nip11_document() const {
  std::string nips = "[1,2,9,10,11,16,17,23,25,29,33,38,42,45";
  if (membership_.enforced()) nips += ",43";
  nips += "]";
  return "{\"name\":\"Buzz Relay\",\"description\":\"Buzz \\u2014 private team communication relay\","
         "\"pubkey\":null,\"contact\":null,\"supported_nips\":" + nips +
         ",\"software\":\"https://github.com/block/buzz\",\"version\":\"" BUZZ_VERSION "\","
         "\"limitation\":{\"max_message_length\":65536,\"max_subscriptions\":1024,\"max_filters\":10,"
         "\"max_limit\":" + std::to_string(engine::kMaxQueryLimit) +
         ",\"max_subid_length\":256,\"min_pow_difficulty\":null,\"auth_required\":true,"
         "\"payment_required\":false,\"restricted_writes\":true},\"self\":\"" + engine::to_hex(key_.pubkey) + "\"}";
}

net::HttpResponse Relay::route_api(const net::HttpRequest& req) {
  std::string_view path = req.path;
  if (req.method == "PUT" && path == "/api/presence") return put_presence(req);
  if (req.method != "GET" && req.method != "HEAD") return api_error(405, "method not allowed");
  if (path.starts_with("/api/events/")) return get_event(req, path.substr(12));
  if (path == "/api/presence") return get_presence(req);
  if (path == "/api/channels") return list_channels(req);
  if (path.starts_with("/api/channels/")) {
    std::string_view rest = path.substr(14);
    if (rest.ends_with("/members")) return get_channel(req, rest.substr(0, rest.size() - 8), true);
    if (rest.ends_with("/canvas")) return get_canvas(req, rest.substr(0, rest.size() - 7));
    if (rest.find('/') == std::string_view::npos) return get_channel(req, rest, false);
  }
  return api_error(404, "not found");
}

// The media area (media.md §1): uploads and blobs, and 404 / 405 for the
// Blossom routes Buzz leaves out (list, delete, mirror, the BUD-06 preflight).
net::HttpResponse Relay::route_media(const net::HttpRequest& req) {
  std::string_view name = std::string_view(req.path).substr(std::string_view("/media/").size());
  if (name == "upload") return req.method == "PUT" ? upload_media(req) : api_error(405, "method not allowed");
  if (name.empty() || name.find('/') != std::string_view::npos) return api_error(404, "not found");
  if (req.method != "GET" && req.method != "HEAD") return api_error(405, "method not allowed");
  return serve_media(req, name);
}

net::HeadDecision Relay::on_request_head(net::Loop&, const net::HttpRequest& head) {
  if (head.method == "PUT" && head.path == "/media/upload") {
    net::HeadDecision d = admit_upload(head);
    if (d.refusal) d.refusal = with_cors(std::move(*d.refusal));
    return d;
  }
  return {};
}

net::HttpResponse Relay::on_http(net::Loop&, const net::HttpRequest& req) {
  if (req.method == "OPTIONS") {
    net::HttpResponse r{204, "", "", {}, {}};
    r.headers = {{"Access-Control-Allow-Origin", "*"},
                 {"Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE, OPTIONS"},
                 {"Access-Control-Allow-Headers",
                  "Authorization, Content-Type, Accept, Range, X-SHA-256, X-Auth-Token, X-Auth-Tag"}};
    return r;
  }
  bool get = req.method == "GET" || req.method == "HEAD";
  if (get && (req.path == "/health" || req.path == "/_liveness" || req.path == "/_readiness")) {
    return net::HttpResponse::json(200, R"({"status":"ok"})");
  }
  if (get && (req.path == "/info" || req.path == "/")) {
    if (req.path == "/" && req.header("accept").find("application/nostr+json") == std::string_view::npos) {
      net::HttpResponse r = net::HttpResponse::text(200, "Buzz relay. Connect with a Nostr client over WebSocket.\n");
      return with_cors(std::move(r));
    }
    net::HttpResponse r = net::HttpResponse::json(200, nip11_document());
    r.content_type = "application/nostr+json";
    return with_cors(std::move(r));
  }
  if (req.path.starts_with("/api/")) return with_cors(route_api(req));
  if (req.path.starts_with("/media/")) return with_cors(route_media(req));
  if (get && req.path == "/metrics") {
    net::HttpResponse r = net::HttpResponse::text(200, render_metrics(metrics_));
    r.content_type = "text/plain; version=0.0.4";
    return r;
  }
  if (!get && (req.path == "/health" || req.path == "/info" || req.path == "/metrics")) {
    return net::HttpResponse::json(405, R"({"error":"method not allowed"})");
  }
  return api_error(404, "not found");
}

}  // namespace buzz::server
