// Workflow rows both ways; see pg_workflow_rows.h.
#include "migrate/pg_workflow_rows.h"

#include <simdjson.h>

#include <cstdlib>

#include "engine/hex.h"

namespace buzz::migrate {
namespace {

using engine::Error;

// "(epoch of col)::bigint", whole seconds, NULL-safe.
std::string seconds(const std::string& col) { return "floor(extract(epoch from " + col + "))::bigint"; }

uint64_t u64(const std::vector<std::string>& v, const std::vector<bool>& null, size_t i) {
  return null[i] ? 0 : std::strtoull(v[i].c_str(), nullptr, 10);
}

// A JSONB column's text, minified as the relay writes its JSON; `fallback` when NULL.
engine::Result<std::string> json_of(const std::vector<std::string>& v, const std::vector<bool>& null, size_t i,
                                    std::string_view fallback) {
  if (null[i]) return std::string(fallback);
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element e;
  if (parser.parse(v[i]).get(e)) return Error{"not JSON"};
  return simdjson::minify(e);
}

void bytes_of_hex(CopyRow& r, std::string_view hex) {
  std::string raw(hex.size() / 2, '\0');
  if (hex.empty() || !engine::hex_decode(hex, reinterpret_cast<uint8_t*>(raw.data()), raw.size())) {
    r.null();
    return;
  }
  r.bytes(raw.data(), raw.size());
}

bool event_trigger(std::string_view on) {
  return on == "message_posted" || on == "reaction_added" || on == "diff_posted";
}

}  // namespace

const char* const kWorkflowsCopy =
    "workflows (id, name, owner_pubkey, channel_id, definition, definition_hash, status, enabled, created_at, "
    "updated_at)";
const char* const kWorkflowRunsCopy =
    "workflow_runs (id, workflow_id, status, trigger_event_id, current_step, execution_trace, trigger_context, "
    "started_at, completed_at, error_message, created_at)";
const char* const kWorkflowApprovalsCopy =
    "workflow_approvals (token, workflow_id, run_id, step_id, step_index, approver_spec, status, approver_pubkey, "
    "note, granted_at, denied_at, expires_at, created_at)";

void append_workflow(CopyRow& r, const engine::WorkflowRecord& w) {
  r.text(w.id).text(w.name).key(w.owner).text_or_null(w.channel_id).text(w.definition);
  bytes_of_hex(r, w.definition_hash);
  // `enabled` is the original's column for what Buzz keeps in the definition
  // (`enabled: false`) and its status: the original never sets it false.
  r.text(w.status).boolean(true).time(w.created_at).time(w.updated_at);
}

void append_run(CopyRow& r, const engine::RunRecord& run) {
  r.text(run.id).text(run.workflow_id).text(engine::run_status_name(run.status));
  bytes_of_hex(r, run.trigger_event_id);
  r.number(run.current_step).text(run.execution_trace).text(run.trigger_context);
  r.time_or_null(run.started_at).time_or_null(run.completed_at);
  run.error_message ? r.text(*run.error_message) : r.null();
  r.time_us(run.created_at, uint32_t(run.created_at_ms % 1000) * 1000);
}

void append_approval(CopyRow& r, const engine::ApprovalRecord& a) {
  bytes_of_hex(r, a.token_hash);
  r.text(a.workflow_id).text(a.run_id).text(a.step_id).number(a.step_index).text(a.approver_spec);
  r.text(engine::approval_status_name(a.status));
  bytes_of_hex(r, a.approver_pubkey);
  a.note ? r.text(*a.note) : r.null();
  r.time_or_null(a.granted_at).time_or_null(a.denied_at).time(a.expires_at).time(a.created_at);
}

std::string workflows_select() {
  return "SELECT id::text, name, encode(owner_pubkey, 'hex'), channel_id::text, definition::text, "
         "encode(definition_hash, 'hex'), status::text, enabled, " + seconds("created_at") + ", " +
         seconds("updated_at") + " FROM workflows ORDER BY created_at, id";
}

std::string workflow_runs_select() {
  return "SELECT r.id::text, r.workflow_id::text, r.status::text, encode(r.trigger_event_id, 'hex'), r.current_step, "
         "r.execution_trace::text, r.trigger_context::text, " + seconds("r.started_at") + ", " +
         seconds("r.completed_at") + ", r.error_message, floor(extract(epoch from r.created_at) * 1000)::bigint, "
         "w.definition->'trigger'->>'on' FROM workflow_runs r JOIN workflows w ON w.id = r.workflow_id "
         "ORDER BY r.created_at, r.id";
}

std::string workflow_approvals_select() {
  return "SELECT encode(token, 'hex'), workflow_id::text, run_id::text, step_id, step_index, approver_spec, "
         "status::text, encode(approver_pubkey, 'hex'), note, " + seconds("granted_at") + ", " + seconds("denied_at") +
         ", " + seconds("expires_at") + ", " + seconds("created_at") + " FROM workflow_approvals ORDER BY created_at, token";
}

engine::Result<engine::WorkflowRecord> workflow_from_row(const std::vector<std::string>& v, const std::vector<bool>& null) {
  engine::WorkflowRecord w;
  w.id = v[0];
  const std::string label = "id=" + w.id + ": ";
  w.name = v[1];
  if (!engine::from_hex(v[2], &w.owner)) return Error{label + "bad owner_pubkey"};
  if (!null[3]) w.channel_id = v[3];
  auto definition = json_of(v, null, 4, "{}");
  if (!definition) return Error{label + "definition is not JSON"};
  w.definition = std::move(*definition);
  w.definition_hash = null[5] ? "" : v[5];
  if (!engine::is_workflow_status(v[6])) return Error{label + "unknown status " + v[6]};
  w.status = v[6];
  if (v[7] == "f" && w.status == engine::kWorkflowActive) w.status = engine::kWorkflowDisabled;
  w.created_at = u64(v, null, 8);
  w.updated_at = u64(v, null, 9);
  return w;
}

engine::Result<engine::RunRecord> run_from_row(const std::vector<std::string>& v, const std::vector<bool>& null) {
  engine::RunRecord r;
  r.id = v[0];
  const std::string label = "id=" + r.id + ": ";
  r.workflow_id = v[1];
  auto status = engine::parse_run_status(v[2]);
  if (!status) return Error{label + "unknown status " + v[2]};
  r.status = *status;
  if (!null[3]) r.trigger_event_id = v[3];
  r.current_step = uint32_t(u64(v, null, 4));
  auto trace = json_of(v, null, 5, "[]");
  auto context = json_of(v, null, 6, "{}");
  if (!trace || !context) return Error{label + "execution_trace or trigger_context is not JSON"};
  r.execution_trace = std::move(*trace);
  r.trigger_context = std::move(*context);
  r.started_at = u64(v, null, 7);
  r.completed_at = u64(v, null, 8);
  if (!null[9]) r.error_message = v[9];
  r.created_at_ms = u64(v, null, 10);
  r.created_at = r.created_at_ms / 1000;
  const std::string on = null[11] ? "" : v[11];
  r.trigger_kind = r.trigger_event_id.empty() && event_trigger(on) ? "manual" : on;
  return r;
}

engine::Result<engine::ApprovalRecord> approval_from_row(const std::vector<std::string>& v,
                                                         const std::vector<bool>& null) {
  engine::ApprovalRecord a;
  a.token_hash = v[0];
  a.workflow_id = v[1];
  a.run_id = v[2];
  a.step_id = v[3];
  a.step_index = uint32_t(u64(v, null, 4));
  a.approver_spec = v[5];
  bool known = false;
  for (auto s : {engine::ApprovalStatus::kPending, engine::ApprovalStatus::kGranted, engine::ApprovalStatus::kDenied,
                 engine::ApprovalStatus::kExpired}) {
    if (engine::approval_status_name(s) == v[6]) a.status = s, known = true;
  }
  if (!known) return Error{"token=" + a.token_hash + ": unknown status " + v[6]};
  if (!null[7]) a.approver_pubkey = v[7];
  if (!null[8]) a.note = v[8];
  a.granted_at = u64(v, null, 9);
  a.denied_at = u64(v, null, 10);
  a.expires_at = u64(v, null, 11);
  a.created_at = u64(v, null, 12);
  return a;
}

std::vector<PgConnection::Statement> workflow_mirror_statements(std::span<const engine::StateWrite> writes) {
  std::vector<PgConnection::Statement> out;
  auto secs = [](uint64_t t) { return std::to_string(t); };
  for (const engine::StateWrite& w : writes) {
    if (w.table != engine::StateTable::kWorkflows || w.key.empty()) continue;
    const char prefix = w.key[0];
    if (prefix == 'w' && w.value.empty()) {  // a deleted workflow: its runs and approvals cascade
      out.push_back({"DELETE FROM workflows WHERE id = $1::uuid", {w.key.substr(1)}});
    } else if (prefix == 'w') {
      engine::WorkflowRecord r;
      if (!engine::decode_workflow(w.value, &r)) continue;
      out.push_back({"INSERT INTO users (pubkey) VALUES (decode($1, 'hex')) ON CONFLICT DO NOTHING", {engine::to_hex(r.owner)}});
      out.push_back({"INSERT INTO workflows (id, name, owner_pubkey, channel_id, definition, definition_hash, status, "
                     "enabled, created_at, updated_at) VALUES ($1::uuid, $2, decode($3, 'hex'), "
                     "(SELECT id FROM channels WHERE id = NULLIF($4, '')::uuid), $5::jsonb, decode($6, 'hex'), "
                     "$7::workflow_status, TRUE, to_timestamp($8::bigint), to_timestamp($9::bigint)) "
                     "ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, channel_id = COALESCE(EXCLUDED.channel_id, workflows.channel_id), "
                     "definition = EXCLUDED.definition, "
                     "definition_hash = EXCLUDED.definition_hash, status = EXCLUDED.status, updated_at = EXCLUDED.updated_at",
                     {r.id, r.name, engine::to_hex(r.owner), r.channel_id, r.definition, r.definition_hash, r.status,
                      secs(r.created_at), secs(r.updated_at)}});
    } else if (prefix == 'r' && !w.value.empty()) {
      engine::RunRecord r;
      if (!engine::decode_run(w.value, &r)) continue;
      out.push_back({"INSERT INTO workflow_runs (id, workflow_id, status, trigger_event_id, current_step, execution_trace, "
                     "trigger_context, started_at, completed_at, error_message, created_at) "
                     "SELECT $1::uuid, $2::uuid, $3::run_status, decode(NULLIF($4, ''), 'hex'), $5::int, $6::jsonb, "
                     "$7::jsonb, to_timestamp(NULLIF($8::bigint, 0)), to_timestamp(NULLIF($9::bigint, 0)), "
                     "NULLIF($10, ''), to_timestamp($11::bigint / 1000.0) WHERE EXISTS (SELECT 1 FROM workflows WHERE id = $2::uuid) "
                     "ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, current_step = EXCLUDED.current_step, "
                     "execution_trace = EXCLUDED.execution_trace, started_at = EXCLUDED.started_at, "
                     "completed_at = EXCLUDED.completed_at, error_message = EXCLUDED.error_message",
                     {r.id, r.workflow_id, std::string(engine::run_status_name(r.status)), r.trigger_event_id,
                      std::to_string(r.current_step), r.execution_trace, r.trigger_context, secs(r.started_at),
                      secs(r.completed_at), r.error_message.value_or(""),
                      std::to_string(r.created_at_ms ? r.created_at_ms : r.created_at * 1000)}});
    } else if (prefix == 'a' && !w.value.empty()) {
      engine::ApprovalRecord a;
      if (!engine::decode_approval(w.value, &a)) continue;
      out.push_back({"INSERT INTO workflow_approvals (token, workflow_id, run_id, step_id, step_index, approver_spec, "
                     "status, approver_pubkey, note, granted_at, denied_at, expires_at, created_at) "
                     "SELECT decode($1, 'hex'), $2::uuid, $3::uuid, $4, $5::int, $6, $7::approval_status, "
                     "decode(NULLIF($8, ''), 'hex'), $9, to_timestamp(NULLIF($10::bigint, 0)), "
                     "to_timestamp(NULLIF($11::bigint, 0)), to_timestamp($12::bigint), to_timestamp($13::bigint) "
                     "WHERE EXISTS (SELECT 1 FROM workflow_runs WHERE id = $3::uuid) "
                     "ON CONFLICT (token) DO UPDATE SET status = EXCLUDED.status, approver_pubkey = EXCLUDED.approver_pubkey, "
                     "note = EXCLUDED.note, granted_at = EXCLUDED.granted_at, denied_at = EXCLUDED.denied_at",
                     {a.token_hash, a.workflow_id, a.run_id, a.step_id, std::to_string(a.step_index), a.approver_spec,
                      std::string(engine::approval_status_name(a.status)), a.approver_pubkey, a.note.value_or(""),
                      secs(a.granted_at), secs(a.denied_at), secs(a.expires_at), secs(a.created_at)}});
    }
  }
  return out;
}

}  // namespace buzz::migrate
