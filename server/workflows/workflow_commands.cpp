// The HEAD-era control plane (docs/reference/workflows.md §14): signed command events that do
// what the REST endpoints do. 30620 creates a workflow from the YAML in its
// content, 46020 triggers one, 46030 / 46031 grant or deny an approval. Each
// answers OK with "response:{…}" or an "invalid: …" / "forbidden: …" refusal,
// and an accepted command is stored in the workflow's channel (members only),
// never fanned out: sent again, it answers "duplicate: already processed".
// Loop thread (Relay::ingest, through CommandRunner).
#include <simdjson.h>

#include "engine/channel.h"
#include "engine/hex.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "server/workflows/save_checks.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

CommandRunner::Outcome refused(std::string reason) { return {false, std::move(reason), {}}; }

CommandRunner::Outcome accepted(std::string response_json, std::string channel) {
  return {true, "response:" + std::move(response_json), std::move(channel)};
}

// The value of the first `d` tag, else of the first `e` tag.
std::string_view d_or_e(const engine::Event& e) {
  std::string_view v = e.first_tag_value("d");
  return v.empty() ? e.first_tag_value("e") : v;
}

}  // namespace

bool Workflows::runs(uint16_t kind) const {
  return kind == kind::kWorkflowDefinition || kind == kind::kTriggerWorkflow || kind == kind::kGrantApproval ||
         kind == kind::kDenyApproval;
}

CommandRunner::Outcome Workflows::run(const engine::Event& command) {
  switch (command.kind) {
    case kind::kWorkflowDefinition: return create_by_command(command);
    case kind::kTriggerWorkflow: return trigger_by_command(command);
    default: return decide_by_command(command);
  }
}

CommandRunner::Outcome Workflows::create_by_command(const engine::Event& e) {
  std::string_view channel = e.first_tag_value("h");
  if (channel.empty()) return refused("invalid: missing h tag (channel_id)");
  if (!engine::is_canonical_uuid(channel)) return refused("invalid: h tag must be a canonical lowercase UUID");
  // An active member: an open channel's visitors may not (§14).
  if (!team_.is_member(channel, e.pubkey)) return refused("forbidden: not a member of this channel");
  auto def = parse_definition(e.content);
  if (!def) return refused("invalid: workflow YAML parse error: " + def.error());
  // The checks REST makes at save time, but the host-name lookups: the run-time
  // check refuses a private address before any connection (§9.5).
  std::vector<HostCheck> unresolved;
  if (auto error = save_checks(*def, channel, http_.options().allow_hosts, &unresolved)) {
    std::string_view text = *error;
    if (text.starts_with("invalid ")) text.remove_prefix(8);  // "invalid workflow YAML: …" → "invalid: workflow YAML: …"
    return refused("invalid: " + std::string(text));
  }
  std::string name(e.first_tag_value("name"));
  if (name.empty()) name = e.first_tag_value("d");
  auto created = store_new(e.pubkey, std::string(channel), std::move(*def), std::move(name));
  if (!created) return refused("error: " + created.error());
  std::vector<std::pair<std::string, std::string>> response = {{"workflow_id", json_string(created->workflow->record.id)}};
  if (!created->secret.empty()) response.emplace_back("webhook_secret", json_string(created->secret));
  return accepted(json_object(std::move(response)), std::string(channel));
}

CommandRunner::Outcome Workflows::trigger_by_command(const engine::Event& e) {
  std::string_view id = d_or_e(e);
  if (id.empty()) return refused("invalid: missing d or e tag (workflow_id)");
  WorkflowPtr w = engine::is_canonical_uuid(id) ? find(id) : nullptr;
  if (!w) return refused("invalid: workflow not found");
  const std::string& channel = w->record.channel_id;
  if (channel.empty() ? w->record.owner != e.pubkey : !team_.is_member(channel, e.pubkey)) {
    return refused(channel.empty() ? "forbidden: not the owner of this workflow" : "forbidden: not a member of this channel");
  }
  if (w->record.status != engine::kWorkflowActive || !w->def.enabled) return refused("invalid: workflow is not active");
  TriggerContext context;
  context.author = engine::to_hex(e.pubkey);
  context.channel_id = channel;
  if (!e.content.empty()) {
    simdjson::dom::parser parser;
    simdjson::dom::object fields;
    if (parser.parse(e.content).get_object().get(fields)) return refused("invalid: content must be a JSON object");
    context.webhook_fields = TriggerContext::fields_of(e.content);
  }
  auto run = start_run(w, std::move(context), "manual", "");
  if (!run) return refused("error: " + run.error());
  return accepted(json_object({{"run_id", json_string(*run)}}), channel);
}

CommandRunner::Outcome Workflows::decide_by_command(const engine::Event& e) {
  std::string_view key = d_or_e(e);
  if (key.empty()) return refused("invalid: missing d or e tag (approval token hash)");
  if (key.size() != 64 || key.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return refused("invalid: approval token hash must be 64 lowercase hex characters");
  }
  const bool grant = e.kind == kind::kGrantApproval;
  auto can_read = [&](std::string_view channel) { return team_.can_read(channel, e.pubkey); };
  std::optional<std::string> note;
  if (!e.content.empty()) note = e.content;
  engine::ApprovalRecord a;
  if (auto refusal = record_decision(e.pubkey, can_read, std::string(key), grant, std::move(note), &a)) {
    return refused(std::move(refusal->command));
  }
  WorkflowPtr w = find(a.workflow_id);
  return accepted(json_object({{"status", json_string(grant ? "granted" : "denied")}, {"run_id", json_string(a.run_id)}}),
                  w ? w->record.channel_id : std::string());
}

}  // namespace buzz::server
