// Plain HTTP on the relay's port: NIP-11 (protocol.md §15), health checks,
// Prometheus metrics, NIP-05 names, the REST API routes (handlers/api_*.cpp) and
// media (handlers/media_*.cpp). Every body is limited to 1 MiB except an upload's.
#include <tuple>

#include "engine/canonical.h"
#include "engine/event_store.h"
#include "server/relay.h"

namespace buzz::server {
namespace {

// "{id}/{sub…}" → (id, "/{sub…}"), the sub-path empty when there is none.
// Callers std::tie the pair: their lambdas capture both parts, and clang
// before 16 cannot capture a structured binding.
std::pair<std::string_view, std::string_view> split_id(std::string_view rest) {
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return {rest, {}};
  return {rest.substr(0, slash), rest.substr(slash)};
}

// Discovery documents are public: any origin may read them.
net::HttpResponse public_cors(net::HttpResponse r) {
  r.headers.emplace_back("Access-Control-Allow-Origin", "*");
  return r;
}

}  // namespace

net::HttpResponse api_error(int status, std::string_view message) {
  std::string body = "{\"error\":";
  engine::append_json_string(body, message);
  return net::HttpResponse::json(status, body + "}");
}

net::HttpResponse api_error(int status, std::string_view code, std::string_view message) {
  std::string body = "{\"error\":";
  engine::append_json_string(body, code);
  body += ",\"message\":";
  engine::append_json_string(body, message);
  return net::HttpResponse::json(status, body + "}");
}

std::string Relay::nip11_document() const {
  // protocol.md §15's list, with 45 (COUNT) and 9 (deletion), which we implement too.
  std::string nips = "[1,2,9,10,11,16,17,23,25,29,33,38,42,45,50";
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

std::optional<net::HttpResponse> Relay::route_api(net::Connection& conn, const net::HttpRequest& req) {
  const std::string_view path = req.path;
  const std::string_view method = req.method == "HEAD" ? "GET" : std::string_view(req.method);
  // Authenticates for one route, then runs it with the caller.
  auto as = [&](std::optional<Scope> need, auto&& handler,
                AuthMode mode = AuthMode::kStandard) -> std::optional<net::HttpResponse> {
    Caller who;
    if (auto refused = authenticate_http(req, need, &who, mode)) return refused;
    return handler(who);
  };
  auto is = [&](std::string_view m) { return method == m; };
  bool known = true;  // the path exists (for 405 versus 404)

  if (path == "/api/tokens") {
    if (is("POST")) return as(std::nullopt, [&](const Caller& c) { return mint_token(c, req); }, AuthMode::kMint);
    if (is("GET")) return as(std::nullopt, [&](const Caller& c) { return list_tokens(c); });
    if (is("DELETE")) return as(std::nullopt, [&](const Caller& c) { return revoke_all_tokens(c); });
  } else if (path.starts_with("/api/tokens/")) {
    std::string_view id = path.substr(12);
    if (is("DELETE")) return as(std::nullopt, [&](const Caller& c) { return revoke_token(c, id); });
  } else if (path == "/api/events") {
    // Each kind names its own scope (protocol.md §6.6), checked by the pipeline.
    if (is("POST")) return as(std::nullopt, [&](const Caller& c) { return post_event(c, conn, req); });
  } else if (path.starts_with("/api/events/")) {
    // The scope depends on the event's kind; a refusal is a 404 like a missing event.
    if (is("GET")) return as(std::nullopt, [&](const Caller& c) { return get_event(c, path.substr(12)); });
  } else if (path == "/api/search") {
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return get_search(c, req); });
  } else if (path == "/api/feed") {
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return get_feed(c, req); });
  } else if (path == "/api/presence") {
    if (is("GET")) return as(Scope::kChannelsRead, [&](const Caller& c) { return get_presence(c, req); });
    if (is("PUT")) return as(Scope::kChannelsRead, [&](const Caller& c) { return put_presence(c, req); });
  } else if (path == "/api/channels") {
    if (is("GET")) return as(Scope::kChannelsRead, [&](const Caller& c) { return list_channels(c, req); });
  } else if (path.starts_with("/api/channels/")) {
    std::string_view id, sub;
    std::tie(id, sub) = split_id(path.substr(14));
    if (sub.empty() && is("GET")) return as(Scope::kChannelsRead, [&](const Caller& c) { return get_channel(c, id, false); });
    if (sub == "/members" && is("GET")) return as(Scope::kChannelsRead, [&](const Caller& c) { return get_channel(c, id, true); });
    if (sub == "/canvas" && is("GET")) return as(Scope::kChannelsRead, [&](const Caller& c) { return get_canvas(c, id); });
    if (sub == "/messages" && is("GET")) {
      return as(Scope::kMessagesRead, [&](const Caller& c) { return get_messages(c, id, req); });
    }
    if (sub.starts_with("/threads/") && is("GET")) {
      return as(Scope::kMessagesRead, [&](const Caller& c) { return get_thread(c, id, sub.substr(9), req); });
    }
    known = sub.empty() || sub == "/members" || sub == "/canvas" || sub == "/messages" || sub.starts_with("/threads/");
  } else if (path.starts_with("/api/messages/") && path.ends_with("/reactions")) {
    std::string_view target = path.substr(14, path.size() - 14 - 10);
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return get_reactions(c, target, req); });
  } else if (path.starts_with("/api/users/")) {
    std::string_view id, sub;
    std::tie(id, sub) = split_id(path.substr(11));
    const bool batch = id == "batch" && sub.empty(), search = id == "search" && sub.empty();
    const bool policy = id == "me" && sub == "/channel-add-policy";
    if (batch && is("POST")) return as(Scope::kUsersRead, [&](const Caller& c) { return batch_profiles(c, req); });
    if (search && is("GET")) return as(Scope::kUsersRead, [&](const Caller& c) { return search_users(c, req); });
    if (policy && is("PUT")) return as(Scope::kUsersWrite, [&](const Caller& c) { return put_channel_add_policy(c, req); });
    if (sub == "/profile" && is("GET")) return as(Scope::kUsersRead, [&](const Caller& c) { return get_profile(c, id); });
    if (sub == "/notes" && is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return get_notes(c, id, req); });
    if (sub == "/contact-list" && is("GET")) return as(Scope::kUsersRead, [&](const Caller& c) { return get_contact_list(c, id); });
    known = batch || search || policy || sub == "/profile" || sub == "/notes" || sub == "/contact-list";
  } else if (path == "/api/agents") {
    if (is("GET")) return as(Scope::kChannelsRead, [&](const Caller& c) { return list_agents(c); });
  } else if (path == "/api/dms") {
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return list_dms(c, req); });
    if (is("POST")) {
      return as(Scope::kMessagesWrite, [&](const Caller& c) { return change_dm(c, conn, req, DmOp::kOpen, ""); });
    }
  } else if (path.starts_with("/api/dms/")) {
    std::string_view id, sub;
    std::tie(id, sub) = split_id(path.substr(9));
    std::optional<DmOp> op;
    if (sub == "/members") op = DmOp::kAdd;
    if (sub == "/hide") op = DmOp::kHide;
    if (op && is("POST")) return as(Scope::kMessagesWrite, [&](const Caller& c) { return change_dm(c, conn, req, *op, id); });
    known = op.has_value();
  } else if (path == "/api/relay/members") {
    // users:read or admin:users: the handler checks, with its own error text (§3.12).
    if (is("GET")) return as(std::nullopt, [&](const Caller& c) { return list_relay_members(c); });
  } else if (path == "/api/relay/members/me") {
    if (is("GET")) {
      return as(std::nullopt, [&](const Caller& c) { return get_relay_membership(c); }, AuthMode::kNoMembershipGate);
    }
  } else {
    known = false;
  }
  return known ? api_error(405, "method not allowed") : api_error(404, "not found");
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
    if (d.refusal) cors_.apply(head.header("origin"), *d.refusal);
    return d;
  }
  return {};
}

std::optional<net::HttpResponse> Relay::health_check(std::string_view path, bool health_port) const {
  if (path == "/health" || path == "/_liveness") return net::HttpResponse::text(200, "ok");
  if (path == "/_readiness") {
    // The appliance has no Postgres or Redis to ping; it names its store instead.
    if (shutting_down_.load(std::memory_order_relaxed)) return net::HttpResponse::json(503, R"({"status":"shutting_down"})");
    return net::HttpResponse::json(200, R"({"status":"ready","storage":"rocksdb"})");
  }
  if (health_port && path == "/_status") {
    auto uptime = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_);
    return net::HttpResponse::json(200, R"({"service":"buzz-relay","version":")" BUZZ_VERSION R"(","uptime_seconds":)" +
                                            std::to_string(uptime.count()) + "}");
  }
  return std::nullopt;
}

net::HttpResponse Relay::metrics_page() const {
  net::HttpResponse r = net::HttpResponse::text(200, render_metrics(metrics_));
  r.content_type = "text/plain; version=0.0.4";
  return r;
}

std::optional<net::HttpResponse> Relay::on_http(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req) {
  const std::string_view origin = req.header("origin");
  if (req.method == "OPTIONS") return cors_.preflight(origin);
  bool get = req.method == "GET" || req.method == "HEAD";
  if (get) {
    if (auto r = health_check(req.path, /*health_port=*/false)) return r;
  }
  if (get && (req.path == "/info" || req.path == "/")) {  // GET / without an upgrade is NIP-11 too (protocol.md §1)
    net::HttpResponse r = net::HttpResponse::json(200, nip11_document());
    r.content_type = "application/nostr+json";
    return public_cors(std::move(r));
  }
  if (get && req.path == "/.well-known/nostr.json") return public_cors(nip05_names(req));
  if (req.path.starts_with("/api/") || is_bridge_path(req.path)) {
    std::optional<net::HttpResponse> r = req.path.starts_with("/api/") ? route_api(conn, req) : route_bridge(conn, req);
    if (!r) {  // answered later (on_write_batch), with this origin's CORS header
      state(loop).deferred_origins[subscription_owner(conn.id())] = std::string(origin);
      return std::nullopt;
    }
    cors_.apply(origin, *r);
    return r;
  }
  if (req.path.starts_with("/media/")) {
    net::HttpResponse r = route_media(req);
    cors_.apply(origin, r);
    return r;
  }
  if (get && req.path == "/metrics") return metrics_page();
  if (!get && (req.path == "/health" || req.path == "/info" || req.path == "/metrics")) {
    return net::HttpResponse::json(405, R"({"error":"method not allowed"})");
  }
  return api_error(404, "not found");
}

}  // namespace buzz::server
