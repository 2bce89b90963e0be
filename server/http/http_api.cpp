// The HTTP half of the relay's port: what is served where, and the answers
// that wait for the store writer; see http_api.h. The REST routes are in
// api_routes.cpp. Every body is limited to 1 MiB except an upload's.
#include "server/http/http_api.h"

#include "engine/event_store.h"
#include "server/common/api_error.h"
#include "server/web/web_client.h"

namespace buzz::server {
namespace {

// Discovery documents are public: any origin may read them.
net::HttpResponse public_cors(net::HttpResponse r) {
  r.headers.emplace_back("Access-Control-Allow-Origin", "*");
  return r;
}

}  // namespace

HttpApi::HttpApi(Options options, const Services& services, const Rooms& rooms, const engine::Keypair& key,
                 size_t loops)
    : options_(std::move(options)),
      s_(services),
      relay_(rooms.relay),
      media_(rooms.media),
      health_(rooms.health),
      metrics_(rooms.metrics),
      workflows_(rooms.workflows),
      key_(key),
      cors_(options_.cors_origins),
      mint_limiter_(options_.mint_rate_limit, 3600),
      deferred_origins_(loops) {}

std::string HttpApi::nip11_document() const {
  // docs/reference/protocol.md §15's list, with 45 (COUNT) and 9 (deletion), which we implement too.
  std::string nips = "[1,2,9,10,11,16,17,23,25,29,33,38,42,45,50";
  if (s_.membership.enforced()) nips += ",43";
  nips += ",77]";  // NIP-77 negentropy (server/relay/handle_neg.cpp)
  return "{\"name\":\"Buzz Relay\",\"description\":\"Buzz \\u2014 private team communication relay\","
         "\"pubkey\":null,\"contact\":null,\"supported_nips\":" + nips +
         ",\"software\":\"https://github.com/block/buzz\",\"version\":\"" BUZZ_VERSION "\","
         "\"limitation\":{\"max_message_length\":65536,\"max_subscriptions\":1024,\"max_filters\":10,"
         "\"max_limit\":" + std::to_string(engine::kMaxQueryLimit) +
         ",\"max_subid_length\":256,\"min_pow_difficulty\":null,\"auth_required\":true,"
         "\"payment_required\":false,\"restricted_writes\":true},\"self\":\"" + engine::to_hex(key_.pubkey) + "\"}";
}

net::HeadDecision HttpApi::on_request_head(net::Loop&, const net::HttpRequest& head) {
  if (head.method == "PUT" && head.path == "/media/upload") {
    net::HeadDecision d = media_.admit_upload(head);
    if (d.refusal) cors_.apply(head.header("origin"), *d.refusal);
    return d;
  }
  return {};
}

std::optional<net::HttpResponse> HttpApi::on_http(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req) {
  const std::string_view origin = req.header("origin");
  if (req.method == "OPTIONS") return cors_.preflight(origin);
  bool get = req.method == "GET" || req.method == "HEAD";
  if (get) {
    if (auto r = health_.check(req.path, /*health_port=*/false)) return r;
    // A browser asking for / gets the web client; NIP-11 clients send application/nostr+json.
    if (req.header("accept").find("application/nostr+json") == std::string_view::npos) {
      if (auto r = web_client_response(req)) return r;
    }
  }
  if (get && (req.path == "/info" || req.path == "/")) {  // GET / without an upgrade is NIP-11 too (docs/reference/protocol.md §1)
    net::HttpResponse r = net::HttpResponse::json(200, nip11_document());
    r.content_type = "application/nostr+json";
    return public_cors(std::move(r));
  }
  if (get && req.path == "/.well-known/nostr.json") return public_cors(nip05_names(req));
  // The routes that may answer later (answer_event, answer_dm, a workflow save, an
  // upload): their deferred answer keeps this request's Origin for its CORS header.
  std::optional<net::HttpResponse> r;
  if (req.path.starts_with("/api/")) {
    r = route_api(loop, conn, req);
  } else if (is_workflow_path(req.path)) {
    r = route_workflows(loop, conn, req);
  } else if (is_bridge_path(req.path)) {
    r = route_bridge(conn, req);
  } else if (req.path.starts_with("/media/")) {
    r = media_.route(req, answer_later(loop, conn.id()));
  } else {
    if (get && req.path == "/metrics") return metrics_page(metrics_);
    if (!get && (req.path == "/health" || req.path == "/info" || req.path == "/metrics")) {
      return net::HttpResponse::json(405, R"({"error":"method not allowed"})");
    }
    return api_error(404, "not found");
  }
  if (!r) {
    deferred_origins_[loop.index()][subscription_owner(conn.id())] = std::string(origin);
    return std::nullopt;
  }
  cors_.apply(origin, *r);
  return r;
}

std::function<void(net::HttpResponse)> HttpApi::answer_later(net::Loop& loop, net::ConnId to) {
  return [this, &loop, to](net::HttpResponse r) {
    loop.post([this, &loop, to, r = std::move(r)] {
      if (loop.find(to)) {
        respond_later(loop, to, r);
      } else {  // the client left before the answer
        deferred_origins_[loop.index()].erase(subscription_owner(to));
      }
    });
  };
}

void HttpApi::respond_later(net::Loop& loop, net::ConnId to, net::HttpResponse response) {
  auto origin = deferred_origins_[loop.index()].extract(subscription_owner(to));
  if (origin) cors_.apply(origin.mapped(), response);
  loop.respond(to, response);
}

void HttpApi::answer_event(net::Loop& loop, net::ConnId to, const engine::Id& id, const Verdict& verdict) {
  if (!loop.find(to)) {  // the client left before the verdict: nothing to answer, nothing to count
    deferred_origins_[loop.index()].erase(subscription_owner(to));
    return;
  }
  respond_later(loop, to, event_response(id, verdict));
}

void HttpApi::answer_dm(net::Loop& loop, const DmReply& reply) { respond_later(loop, reply.to, dm_response(reply)); }

}  // namespace buzz::server
