// The REST API's routes (docs/reference/rest-api.md §3): each path and method, the scope it
// needs, and its handler (api_*.cpp). 404 for an unknown path, 405 for a
// known path with another method.
#include <tuple>

#include "server/common/api_error.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"

namespace buzz::server {

std::optional<net::HttpResponse> HttpApi::route_api(net::Loop& loop, net::Connection& conn, const net::HttpRequest& req) {
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
  if (is_workflow_path(path)) return route_workflows(loop, conn, req);

  if (path == "/api/tokens") {
    if (is("POST")) return as(std::nullopt, [&](const Caller& c) { return mint_token(c, req); }, AuthMode::kMint);
    if (is("GET")) return as(std::nullopt, [&](const Caller& c) { return list_tokens(c); });
    if (is("DELETE")) return as(std::nullopt, [&](const Caller& c) { return revoke_all_tokens(c); });
  } else if (path.starts_with("/api/tokens/")) {
    std::string_view id = path.substr(12);
    if (is("DELETE")) return as(std::nullopt, [&](const Caller& c) { return revoke_token(c, id); });
  } else if (path == "/api/events") {
    // Each kind names its own scope (docs/reference/protocol.md §6.6), checked by the pipeline.
    if (is("POST")) return as(std::nullopt, [&](const Caller& c) { return post_event(c, conn, req); });
  } else if (path.starts_with("/api/events/")) {
    // The scope depends on the event's kind; a refusal is a 404 like a missing event.
    if (is("GET")) return as(std::nullopt, [&](const Caller& c) { return get_event(c, path.substr(12)); });
  } else if (path == "/api/search") {
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return get_search(c, req); });
  } else if (path == "/api/link-preview") {
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller&) { return get_link_preview(loop, conn, req); });
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
    if (sub == "/typing" && is("GET")) return as(Scope::kChannelsRead, [&](const Caller& c) { return get_typing(c, id); });
    if (sub == "/messages" && is("GET")) {
      return as(Scope::kMessagesRead, [&](const Caller& c) { return get_messages(c, id, req); });
    }
    if (sub.starts_with("/threads/") && is("GET")) {
      return as(Scope::kMessagesRead, [&](const Caller& c) { return get_thread(c, id, sub.substr(9), req); });
    }
    known = sub.empty() || sub == "/members" || sub == "/canvas" || sub == "/typing" || sub == "/messages" ||
            sub.starts_with("/threads/");
  } else if (path.starts_with("/api/messages/") && path.ends_with("/reactions")) {
    std::string_view target = path.substr(14, path.size() - 14 - 10);
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return get_reactions(c, target, req); });
  } else if (path.starts_with("/api/messages/") && path.ends_with("/receipts")) {
    std::string_view id = path.substr(14, path.size() - 14 - 9);
    if (is("GET")) return as(Scope::kMessagesRead, [&](const Caller& c) { return get_receipts(c, id); });
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
  } else if (path == "/api/audit" || path == "/api/audit/verify") {
    // admin:users, and the caller's relay role owner or admin (the handler checks).
    const bool verify = path.ends_with("/verify");
    if (is("GET")) return as(Scope::kAdminUsers, [&](const Caller& c) { return read_audit(c, loop, conn, req, verify); });
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

std::optional<net::HttpResponse> HttpApi::get_link_preview(net::Loop& loop, net::Connection& conn,
                                                          const net::HttpRequest& req) {
  const std::string url = req.query_param("url");
  const bool web = url.starts_with("http://") || url.starts_with("https://");
  if (!web || url.size() > 2048) return api_error(400, "url: an http:// or https:// address of 2048 bytes at most");
  return previews_.get(url, answer_later(loop, conn.id()));
}

}  // namespace buzz::server
