// The routes of the workflow room's endpoints (docs/reference/rest-api.md §3.13–§3.14): the
// scope each needs, authentication, and the channel check handed to the room.
// The webhook paths take no user authentication: the secret is checked there.
#include <tuple>

#include "server/common/api_error.h"
#include "server/http/http_api.h"
#include "server/http/rest_params.h"

namespace buzz::server {

bool HttpApi::is_workflow_path(std::string_view path) {
  if (path.starts_with("/hooks/") || path.starts_with("/api/workflows/") || path.starts_with("/api/approvals/")) {
    return true;
  }
  return path.starts_with("/api/channels/") && std::get<1>(split_id(path.substr(14))) == "/workflows";
}

std::optional<net::HttpResponse> HttpApi::route_workflows(net::Loop& loop, net::Connection& conn,
                                                          const net::HttpRequest& req) {
  if (!workflows_) return api_error(404, "not found");
  Workflows& wf = *workflows_;
  // A save that resolves webhook hosts answers from another thread.
  Workflows::Later later = answer_later(loop, conn.id());
  const std::string_view path = req.path;
  const std::string_view method = req.method == "HEAD" ? "GET" : std::string_view(req.method);
  auto is = [&](std::string_view m) { return method == m; };
  auto as = [&](Scope need, auto&& handler) -> std::optional<net::HttpResponse> {
    Caller who;
    if (auto refused = authenticate_http(req, need, &who)) return *refused;
    WorkflowCaller caller{who.pubkey, [this, who](std::string_view channel) { return check_channel(who, channel); },
                          [grant = who.grant](std::string_view channel) { return grant.allows_channel(channel); }};
    return handler(caller);
  };
  const auto not_allowed = api_error(405, "method not allowed");

  if (path.starts_with("/hooks/")) {
    if (!is("POST")) return not_allowed;
    return wf.webhook(path.substr(7), req);
  }
  if (path.starts_with("/api/channels/")) {
    std::string_view channel, sub;
    std::tie(channel, sub) = split_id(path.substr(14));
    if (is("GET")) return as(Scope::kChannelsRead, [&](const WorkflowCaller& c) { return wf.list_workflows(c, channel, req); });
    if (is("POST")) {
      return as(Scope::kChannelsWrite, [&](const WorkflowCaller& c) { return wf.create_workflow(c, channel, req, later); });
    }
    return not_allowed;
  }
  if (path.starts_with("/api/workflows/")) {
    std::string_view id, sub;
    std::tie(id, sub) = split_id(path.substr(15));
    if (sub.empty()) {
      if (is("GET")) return as(Scope::kChannelsRead, [&](const WorkflowCaller& c) { return wf.get_workflow(c, id); });
      if (is("PUT")) {
        return as(Scope::kChannelsWrite, [&](const WorkflowCaller& c) { return wf.update_workflow(c, id, req, later); });
      }
      if (is("PATCH")) return as(Scope::kChannelsWrite, [&](const WorkflowCaller& c) { return wf.patch_workflow(c, id, req); });
      if (is("DELETE")) return as(Scope::kChannelsWrite, [&](const WorkflowCaller& c) { return wf.delete_workflow(c, id); });
      return not_allowed;
    }
    if (sub == "/webhook") return is("POST") ? wf.webhook(id, req) : not_allowed;
    if (sub == "/disable" || sub == "/enable") {
      if (!is("POST")) return not_allowed;
      const std::string_view status = sub == "/enable" ? engine::kWorkflowActive : engine::kWorkflowDisabled;
      return as(Scope::kChannelsWrite, [&](const WorkflowCaller& c) { return wf.set_status(c, id, status); });
    }
    if (sub == "/trigger") {
      if (!is("POST")) return not_allowed;
      return as(Scope::kChannelsWrite, [&](const WorkflowCaller& c) { return wf.trigger_workflow(c, id, req); });
    }
    if (sub == "/runs") {
      if (!is("GET")) return not_allowed;
      return as(Scope::kChannelsRead, [&](const WorkflowCaller& c) { return wf.list_runs(c, id, req); });
    }
    if (sub.starts_with("/runs/") && sub.ends_with("/approvals")) {
      std::string_view run = sub.substr(6, sub.size() - 6 - 10);
      if (!is("GET")) return not_allowed;
      return as(Scope::kChannelsRead, [&](const WorkflowCaller& c) { return wf.list_approvals(c, id, run); });
    }
    return api_error(404, "not found");
  }
  if (path.starts_with("/api/approvals/")) {
    std::string_view rest = path.substr(15);
    const bool by_hash = rest.starts_with("by-hash/");
    if (by_hash) rest = rest.substr(8);
    std::string_view key, action;
    std::tie(key, action) = split_id(rest);
    if (action != "/grant" && action != "/deny") return api_error(404, "not found");
    if (!is("POST")) return not_allowed;
    const bool grant = action == "/grant";
    return as(Scope::kChannelsWrite,
              [&](const WorkflowCaller& c) { return wf.act_on_approval(c, key, by_hash, grant, req); });
  }
  return api_error(404, "not found");
}

}  // namespace buzz::server
