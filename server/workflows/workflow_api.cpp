// The workflow endpoints of docs/reference/rest-api.md §3.13: list, create, get, update,
// the status (PATCH, and POST disable / enable), delete, runs, a run's
// approvals, the manual trigger and the webhook.
// The HTTP room authenticates and checks the scope; each handler checks channel
// access (WorkflowCaller::check_channel) and ownership as the table words it;
// disabling and deleting are open to the channel's and the relay's managers too
// (may_manage, docs/access.md), which read nothing of the channel by it.
// Loop thread of the request, except a save that must resolve webhook host
// names: that finishes on a thread of its own (after_resolving).
#include <simdjson.h>

#include "engine/canonical.h"
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/hex.h"
#include "engine/json_text.h"
#include "engine/thread_role.h"
#include "server/common/api_error.h"
#include "server/workflows/save_checks.h"
#include "server/workflows/ssrf.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxListed = 100;
constexpr std::string_view kArchived = "workflow is archived";

std::string num_or_null(uint64_t n) { return n ? std::to_string(n) : "null"; }

std::string run_json(const engine::RunRecord& r) {
  return json_object({{"id", json_string(r.id)},
                      {"workflow_id", json_string(r.workflow_id)},
                      {"status", json_string(engine::run_status_name(r.status))},
                      {"current_step", std::to_string(r.current_step)},
                      {"execution_trace", r.execution_trace},
                      {"started_at", num_or_null(r.started_at)},
                      {"completed_at", num_or_null(r.completed_at)},
                      {"error_message", r.error_message ? json_string(*r.error_message) : "null"},
                      {"created_at", std::to_string(r.created_at)}});
}

std::string approval_json(const engine::ApprovalRecord& a) {
  return json_object({{"token", json_string(a.token_hash)},
                      {"workflow_id", json_string(a.workflow_id)},
                      {"run_id", json_string(a.run_id)},
                      {"step_id", json_string(a.step_id)},
                      {"step_index", std::to_string(a.step_index)},
                      {"approver_spec", json_string(a.approver_spec)},
                      {"status", json_string(engine::approval_status_name(a.status))},
                      {"approver_pubkey", json_string_or_null(a.approver_pubkey)},
                      {"note", a.note ? json_string(*a.note) : "null"},
                      {"expires_at", json_string(engine::rfc3339(a.expires_at))},
                      {"created_at", std::to_string(a.created_at)}});
}

// {"yaml_definition": "..."}: the YAML, or the refusal (docs/reference/rest-api.md §0.1: not JSON 400, wrong shape 422).
std::optional<net::HttpResponse> yaml_of(const net::HttpRequest& req, std::string* yaml) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(req.body).get(doc)) return api_error(400, "invalid JSON body");
  std::string_view v;
  if (doc["yaml_definition"].get_string().get(v)) return api_error(422, "missing field `yaml_definition`");
  *yaml = std::string(v);
  return std::nullopt;
}

// Constant time over equal lengths: XOR-fold every byte (§10).
bool secrets_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  uint8_t diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= uint8_t(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::string Workflows::workflow_json(const Workflow& w, const std::string& secret) const {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"id", json_string(w.record.id)},
      {"name", json_string(w.record.name)},
      {"owner_pubkey", json_string(engine::to_hex(w.record.owner))},
      {"channel_id", json_string_or_null(w.record.channel_id)},
      {"definition", definition_json(w.def, /*with_secret=*/false)},
      {"status", json_string(w.record.status)},
      {"created_at", std::to_string(w.record.created_at)},
      {"updated_at", std::to_string(w.record.updated_at)}};
  if (!secret.empty()) fields.emplace_back("webhook_secret", json_string(secret));
  return json_object(std::move(fields));
}

std::optional<net::HttpResponse> Workflows::load_for(const WorkflowCaller& who, std::string_view id, WorkflowPtr* out,
                                                     std::string_view forbidden) {
  if (!engine::is_canonical_uuid(id)) return api_error(400, "invalid workflow UUID");
  WorkflowPtr w = find(id);
  if (!w) return api_error(404, "workflow not found");
  if (w->record.channel_id.empty()) {
    if (w->record.owner != who.pubkey) return api_error(403, forbidden);
  } else if (who.check_channel(w->record.channel_id)) {
    return api_error(403, forbidden);
  }
  *out = std::move(w);
  return std::nullopt;
}

std::optional<net::HttpResponse> Workflows::load_to_manage(const WorkflowCaller& who, std::string_view id,
                                                           WorkflowPtr* out, std::string_view forbidden) {
  if (!engine::is_canonical_uuid(id)) return api_error(400, "invalid workflow UUID");
  WorkflowPtr w = find(id);
  if (!w) return api_error(404, "workflow not found");
  if (!may_manage(who, *w)) return api_error(403, forbidden);
  *out = std::move(w);
  return std::nullopt;
}

std::optional<net::HttpResponse> Workflows::after_resolving(std::vector<HostCheck> hosts,
                                                            std::function<net::HttpResponse()> save, Later later) {
  if (hosts.empty()) return save();
  {
    std::lock_guard lock(mu_);
    if (stopping_) return api_error(503, "shutting down");
    if (resolving_ == kMaxResolving) return api_error(503, "too many workflow saves resolving webhook hosts, retry");
    ++resolving_;
    ++live_threads_;
  }
  std::thread([this, hosts = std::move(hosts), save = std::move(save), later = std::move(later)] {
    engine::set_thread_role("buzz-workflow-dns", engine::ThreadRole::kBackground);
    std::optional<net::HttpResponse> refused;
    for (const HostCheck& h : hosts) {
      if (auto error = check_webhook_host(h.host, h.step_id)) {
        refused = api_error(400, *error);
        break;
      }
    }
    later(refused ? std::move(*refused) : save());
    std::lock_guard done(mu_);
    --resolving_;
    --live_threads_;
    cv_.notify_all();
  }).detach();
  return std::nullopt;
}

net::HttpResponse Workflows::list_workflows(const WorkflowCaller& who, std::string_view channel,
                                            const net::HttpRequest& req) {
  if (!engine::is_canonical_uuid(channel)) return api_error(400, "invalid channel UUID");
  if (auto refused = who.check_channel(channel)) return *refused;
  std::vector<WorkflowPtr> found = in_channel(channel);
  if (req.query_param("include_archived") != "true") {
    std::erase_if(found, [](const WorkflowPtr& w) { return w->record.status == engine::kWorkflowArchived; });
  }
  std::sort(found.begin(), found.end(), [](const WorkflowPtr& a, const WorkflowPtr& b) {
    return a->record.created_at != b->record.created_at ? a->record.created_at > b->record.created_at
                                                        : a->record.id > b->record.id;
  });
  std::vector<std::string> out;
  for (const WorkflowPtr& w : found) {
    if (out.size() == kMaxListed) break;
    out.push_back(workflow_json(*w));
  }
  return net::HttpResponse::json(200, json_array(out));
}

engine::Result<Workflows::Created> Workflows::store_new(const engine::Pubkey& owner, const std::string& channel,
                                                       Definition def, std::string name) {
  Created out;
  if (def.trigger.on == TriggerKind::kWebhook) out.secret = def.webhook_secret = engine::random_uuid();
  Workflow w;
  w.record.id = engine::random_uuid();
  w.record.name = name.empty() ? def.name : std::move(name);
  w.record.owner = owner;
  w.record.channel_id = channel;
  w.record.definition = definition_json(def, /*with_secret=*/true);
  w.record.definition_hash = engine::sha256_hex(w.record.definition);
  w.record.created_at = w.record.updated_at = engine::unix_now();
  w.def = std::move(def);
  if (auto s = tables_.put_workflow(w.record); !s) return engine::Error{"database error: " + s.error()};
  out.workflow = std::make_shared<const Workflow>(std::move(w));
  put(out.workflow);
  return out;
}

std::optional<net::HttpResponse> Workflows::create_workflow(const WorkflowCaller& who, std::string_view channel,
                                                            const net::HttpRequest& req, Later later) {
  if (!engine::is_canonical_uuid(channel)) return api_error(400, "invalid channel UUID");
  if (auto refused = who.check_channel(channel)) return *refused;
  std::string yaml;
  if (auto refused = yaml_of(req, &yaml)) return *refused;
  auto def = parse_definition(yaml);
  if (!def) return api_error(400, "invalid workflow YAML: " + def.error());
  std::vector<HostCheck> resolve;
  if (auto error = save_checks(*def, channel, http_.options().allow_hosts, &resolve)) return api_error(400, *error);
  auto save = [this, owner = who.pubkey, channel = std::string(channel), def = std::move(*def)]() mutable {
    auto stored = store_new(owner, channel, std::move(def), "");
    if (!stored) return api_error(500, stored.error());
    return net::HttpResponse::json(200, workflow_json(*stored->workflow, stored->secret));
  };
  return after_resolving(std::move(resolve), std::move(save), std::move(later));
}

net::HttpResponse Workflows::get_workflow(const WorkflowCaller& who, std::string_view id) {
  WorkflowPtr w;
  if (auto refused = load_for(who, id, &w, "not authorized to access this workflow")) return *refused;
  return net::HttpResponse::json(200, workflow_json(*w));
}

std::optional<net::HttpResponse> Workflows::update_workflow(const WorkflowCaller& who, std::string_view id,
                                                            const net::HttpRequest& req, Later later) {
  WorkflowPtr old;
  if (auto refused = load_for(who, id, &old, "not authorized to update this workflow")) return *refused;
  if (old->record.owner != who.pubkey) return api_error(403, "not authorized to update this workflow");
  if (old->record.status == engine::kWorkflowArchived) return api_error(409, kArchived);
  std::string yaml;
  if (auto refused = yaml_of(req, &yaml)) return *refused;
  auto def = parse_definition(yaml);
  if (!def) return api_error(400, "invalid workflow YAML: " + def.error());
  std::vector<HostCheck> resolve;
  if (auto error = save_checks(*def, old->record.channel_id, http_.options().allow_hosts, &resolve)) {
    return api_error(400, *error);
  }
  auto save = [this, id = old->record.id, def = std::move(*def)]() mutable {
    std::string new_secret;
    bool archived = false;  // meanwhile: it stays as it is
    // Edited as stored when the save happens: a status change meanwhile stays.
    auto stored = edit(id, [&](Workflow& w) {
      if (w.record.status == engine::kWorkflowArchived) {
        archived = true;
        return;
      }
      // The secret: kept while the trigger stays a webhook, made when it becomes one, dropped otherwise (§10).
      def.webhook_secret.clear();
      if (def.trigger.on == TriggerKind::kWebhook) {
        if (!w.def.webhook_secret.empty()) {
          def.webhook_secret = w.def.webhook_secret;
        } else {
          new_secret = def.webhook_secret = engine::random_uuid();
        }
      }
      w.def = std::move(def);
      w.record.name = w.def.name;
      w.record.definition = definition_json(w.def, /*with_secret=*/true);
      w.record.definition_hash = engine::sha256_hex(w.record.definition);
      w.record.updated_at = engine::unix_now();
    });
    if (!stored) return api_error(stored.error() == "workflow not found" ? 404 : 500, stored.error());
    if (archived) return api_error(409, kArchived);
    return net::HttpResponse::json(200, workflow_json(**stored, new_secret));
  };
  return after_resolving(std::move(resolve), std::move(save), std::move(later));
}

net::HttpResponse Workflows::set_status(const WorkflowCaller& who, std::string_view id, std::string_view status) {
  constexpr std::string_view kForbidden = "not authorized to update this workflow";
  WorkflowPtr w;
  if (auto refused = load_to_manage(who, id, &w, kForbidden)) return *refused;
  // Stopping it (disabled) or putting it away (archived) is a manager's right
  // too. Turning it on, or bringing it back from the archive, acts for the
  // owner again: hers alone, and only while she may read the channel.
  auto restores = [&](const Workflow& x) {
    return status == engine::kWorkflowActive || x.record.status == engine::kWorkflowArchived;
  };
  if (restores(*w)) {
    if (auto refused = load_for(who, id, &w, kForbidden)) return *refused;
    if (w->record.owner != who.pubkey) return api_error(403, kForbidden);
  }
  const bool checked = restores(*w);
  bool raced = false;  // archived meanwhile: bringing it back needs the owner's check above
  auto stored = edit(id, [&](Workflow& x) {
    if (restores(x) && !checked) {
      raced = true;
      return;
    }
    if (x.record.status == status) return;
    x.record.status = std::string(status);
    x.record.updated_at = engine::unix_now();
  });
  if (!stored) return api_error(stored.error() == "workflow not found" ? 404 : 500, stored.error());
  if (raced) return api_error(403, kForbidden);
  return net::HttpResponse::json(200, workflow_json(**stored));
}

net::HttpResponse Workflows::patch_workflow(const WorkflowCaller& who, std::string_view id, const net::HttpRequest& req) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(req.body).get(doc)) return api_error(400, "invalid JSON body");
  std::string_view status;
  if (doc["status"].get_string().get(status)) return api_error(422, "missing field `status`");
  if (!engine::is_workflow_status(status)) return api_error(400, "status must be 'active', 'disabled' or 'archived'");
  return set_status(who, id, status);
}

net::HttpResponse Workflows::delete_workflow(const WorkflowCaller& who, std::string_view id) {
  WorkflowPtr w;
  if (auto refused = load_to_manage(who, id, &w, "not authorized to delete this workflow")) return *refused;
  if (auto s = drop(id); !s) return api_error(500, "database error: " + s.error());
  return net::HttpResponse::json(204, "");
}

net::HttpResponse Workflows::list_runs(const WorkflowCaller& who, std::string_view id, const net::HttpRequest& req) {
  WorkflowPtr w;
  if (auto refused = load_for(who, id, &w, "not authorized to trigger this workflow")) return *refused;
  // Its owner and the channel's managers, who may read the channel (the trace holds its text).
  if (w->record.owner != who.pubkey && !manages(who.pubkey, w->record.channel_id)) {
    return api_error(403, "not authorized to trigger this workflow");
  }
  size_t limit = 20;
  if (std::string l = req.query_param("limit"); !l.empty()) {
    char* end = nullptr;
    long n = std::strtol(l.c_str(), &end, 10);
    if (end && *end == '\0') limit = size_t(std::clamp(n, 1L, 100L));
  }
  auto runs = tables_.runs(id);
  if (!runs) return api_error(500, "database error: " + runs.error());
  std::vector<std::string> out;
  for (const engine::RunRecord& r : *runs) {
    if (out.size() == limit) break;
    out.push_back(run_json(r));
  }
  return net::HttpResponse::json(200, json_array(out));
}

net::HttpResponse Workflows::list_approvals(const WorkflowCaller& who, std::string_view id, std::string_view run_id) {
  WorkflowPtr w;
  if (auto refused = load_for(who, id, &w, "not authorized to access this workflow")) return *refused;
  if (!engine::is_canonical_uuid(run_id)) return api_error(400, "invalid run UUID");
  auto approvals = tables_.approvals(id, run_id);
  if (!approvals) return api_error(500, "database error: " + approvals.error());
  std::vector<std::string> out;
  for (const engine::ApprovalRecord& a : *approvals) out.push_back(approval_json(a));
  return net::HttpResponse::json(200, json_array(out));
}

// The run a REST call starts (manual trigger, webhook): the body's keys as
// trigger fields, 202 with the pending run.
net::HttpResponse Workflows::start_from_request(const WorkflowPtr& w, TriggerContext context, std::string kind,
                                                const net::HttpRequest& req) {
  if (w->record.status != engine::kWorkflowActive || !w->def.enabled) return api_error(409, "workflow is not active");
  context.channel_id = w->record.channel_id;
  if (!req.body.empty()) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (auto error = parser.parse(req.body).get(doc)) {
      return api_error(400, std::string("invalid JSON body: ") + simdjson::error_message(error));
    }
    context.webhook_fields = TriggerContext::fields_of(req.body);
  }
  auto run = start_run(w, std::move(context), std::move(kind), "");
  if (!run) return api_error(500, run.error());
  return net::HttpResponse::json(202, json_object({{"run_id", json_string(*run)},
                                                   {"workflow_id", json_string(w->record.id)},
                                                   {"status", json_string("pending")}}));
}

net::HttpResponse Workflows::trigger_workflow(const WorkflowCaller& who, std::string_view id, const net::HttpRequest& req) {
  WorkflowPtr w;
  if (auto refused = load_for(who, id, &w, "not authorized to trigger this workflow")) return *refused;
  TriggerContext context;
  context.author = engine::to_hex(who.pubkey);  // Buzz decision: the caller, not ""
  return start_from_request(w, std::move(context), "manual", req);
}

net::HttpResponse Workflows::webhook(std::string_view id, const net::HttpRequest& req) {
  if (!engine::is_canonical_uuid(id)) return api_error(400, "invalid workflow UUID");
  WorkflowPtr w = find(id);
  if (!w) return api_error(404, "workflow not found");
  if (w->def.trigger.on != TriggerKind::kWebhook) return api_error(400, "workflow does not have a webhook trigger");
  if (w->def.webhook_secret.empty()) {
    return api_error(401, "webhook secret required but not configured — re-save the workflow to generate one");
  }
  std::string given(req.header("x-webhook-secret"));
  if (given.empty()) given = req.query_param("secret");
  if (!secrets_equal(given, w->def.webhook_secret)) return api_error(401, "authentication failed");
  return start_from_request(w, TriggerContext{}, "webhook", req);
}

}  // namespace buzz::server
