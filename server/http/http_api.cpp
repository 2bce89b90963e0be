// The HTTP half of the relay's port: what is served where, and the answers
// that wait for the store writer; see http_api.h. The REST routes are in
// api_routes.cpp. Every body is limited to 1 MiB except an upload's.
#include "server/http/http_api.h"

#include "engine/event_store.h"
#include "engine/json_text.h"
#include "server/common/api_error.h"
#include "server/web/web_client.h"

namespace buzz::server {
namespace {

// NIP-11's `software`: this project, not the original's repository (docs/reference/protocol.md §15).
constexpr const char* kSoftware = "buzz";

// Discovery documents are public: any origin may read them.
net::HttpResponse public_cors(net::HttpResponse r) {
  r.headers.emplace_back("Access-Control-Allow-Origin", "*");
  return r;
}

}  // namespace

HttpApi::HttpApi(Options options, const Services& services, const Rooms& rooms, const engine::Keypair& key,
                 size_t loops)
    : options_(std::move(options)),
      signed_url_(nip98_base_url(options_.relay_url)),
      s_(services),
      relay_(rooms.relay),
      media_(rooms.media),
      health_(rooms.health),
      metrics_(rooms.metrics),
      workflows_(rooms.workflows),
      key_(key),
      cors_(options_.cors_origins, options_.pubkey_header_auth),
      mint_limiter_(options_.mint_rate_limit, 3600),
      previews_(LinkPreviews::Options{.http = {.allow_hosts = options_.preview_allow_hosts}}),
      audit_(rooms.audit.tail && rooms.audit.verify ? std::make_unique<AuditReads>(rooms.audit) : nullptr),
      deferred_origins_(loops),
      nip86_pending_(loops) {}

std::string HttpApi::nip11_document() const {
  const RelayInfo& info = options_.info;
  // docs/reference/protocol.md §15's list, with 45 (COUNT) and 9 (deletion), which we implement too.
  std::string nips = "[1,2,9,10,11,16,17,23,25,29,33,38,40,42,45,50";
  if (s_.membership.enforced()) nips += ",43";
  nips += ",77,86,98]";  // NIP-77 negentropy (server/relay/handle_neg.cpp), NIP-86 (nip86.cpp), NIP-98
  const RelayPolicy* policy = s_.gatekeeper.policy();
  auto text = [&](RelayPolicy::Text which, const std::string& configured) {
    std::optional<std::string> changed = policy ? policy->text(which) : std::nullopt;
    return changed ? json_string(*changed) : json_string_or_null(configured);
  };
  auto yes = [](bool b) { return std::string(b ? "true" : "false"); };
  const std::string limitation = json_object({
      {"max_message_length", std::to_string(info.max_message_length)},
      {"max_subscriptions", std::to_string(info.max_subscriptions)},
      {"max_filters", std::to_string(info.max_filters)},
      {"max_limit", std::to_string(info.max_limit)},
      {"max_subid_length", std::to_string(info.max_subid_length)},
      {"max_content_length", std::to_string(info.max_content_length)},
      {"min_pow_difficulty", "0"},
      {"auth_required", yes(info.auth_required)},
      {"payment_required", "false"},
      {"restricted_writes", yes(info.restricted_writes)},
  });
  return json_object({
      {"name", text(RelayPolicy::Text::kName, info.name)},
      {"description", text(RelayPolicy::Text::kDescription, info.description)},
      {"icon", text(RelayPolicy::Text::kIcon, info.icon)},
      {"banner", json_string_or_null(info.banner)},
      {"pubkey", info.pubkey ? json_string(engine::to_hex(*info.pubkey)) : "null"},
      {"contact", json_string_or_null(info.contact)},
      {"terms_of_service", json_string_or_null(info.terms_of_service)},
      {"supported_nips", nips},
      {"software", json_string(kSoftware)},
      {"version", json_string(BUZZ_VERSION)},
      {"limitation", limitation},
      {"self", json_string(engine::to_hex(key_.pubkey))},
  });
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
    // The same URL is the web client for a browser: a cache must key / by Accept,
    // or a page reloaded after a NIP-11 read there gets this document.
    if (req.path == "/") r.headers.emplace_back("Vary", "Accept");
    return public_cors(std::move(r));
  }
  if (get && req.path == "/.well-known/nostr.json") return public_cors(nip05_names(req));
  // The routes that may answer later (answer_event, answer_dm, a workflow save, an
  // upload): their deferred answer keeps this request's Origin for its CORS header.
  std::optional<net::HttpResponse> r;
  if (is_nip86(req)) {
    r = nip86_call(loop, conn, req);
  } else if (req.path.starts_with("/api/")) {
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
  auto admin = nip86_pending_[loop.index()].extract(subscription_owner(to));
  if (!loop.find(to)) {  // the client left before the verdict: nothing to answer, nothing to count
    deferred_origins_[loop.index()].erase(subscription_owner(to));
    return;
  }
  respond_later(loop, to, admin ? nip86_answer(admin.mapped(), verdict) : event_response(id, verdict));
}

void HttpApi::answer_dm(net::Loop& loop, const DmReply& reply) { respond_later(loop, reply.to, dm_response(reply)); }

}  // namespace buzz::server
