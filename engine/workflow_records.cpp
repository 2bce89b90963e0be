// Encoding and storing workflow records; see workflow_records.h.
#include "engine/workflow_records.h"

#include <simdjson.h>

#include <algorithm>

#include "engine/hex.h"
#include "engine/json_text.h"

namespace buzz::engine {
namespace {

std::string workflow_key(std::string_view id) { return "w" + std::string(id); }
std::string run_prefix(std::string_view workflow_id) { return "r" + std::string(workflow_id); }
std::string run_key(std::string_view workflow_id, std::string_view run_id) {
  return run_prefix(workflow_id) + std::string(run_id);
}
std::string approval_key(std::string_view hash) { return "a" + std::string(hash); }

// Reads fields of one parsed object; missing fields keep their defaults.
struct FieldReader {
  simdjson::dom::object obj;
  std::string str(const char* key) const {
    std::string_view v;
    return obj[key].get_string().get(v) ? std::string() : std::string(v);
  }
  std::optional<std::string> opt(const char* key) const {
    std::string_view v;
    if (obj[key].get_string().get(v)) return std::nullopt;
    return std::string(v);
  }
  uint64_t num(const char* key) const {
    uint64_t v = 0;
    return obj[key].get_uint64().get(v) ? 0 : v;
  }
  std::string raw(const char* key, const char* fallback) const {
    simdjson::dom::element e;
    if (obj[key].get(e)) return fallback;
    return simdjson::minify(e);
  }
};

template <class Fill>
bool read_object(std::string_view value, Fill fill) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(value.data(), value.size()).get_object().get(obj)) return false;
  fill(FieldReader{obj});
  return true;
}

constexpr std::string_view kRunStatus[] = {"pending", "running", "waiting_approval", "completed", "failed", "cancelled"};
constexpr std::string_view kApprovalStatus[] = {"pending", "granted", "denied", "expired"};

}  // namespace

std::string_view run_status_name(RunStatus s) { return kRunStatus[size_t(s)]; }
std::optional<RunStatus> parse_run_status(std::string_view s) {
  for (size_t i = 0; i < std::size(kRunStatus); ++i) {
    if (kRunStatus[i] == s) return RunStatus(i);
  }
  return std::nullopt;
}
std::string_view approval_status_name(ApprovalStatus s) { return kApprovalStatus[size_t(s)]; }

std::string encode_workflow(const WorkflowRecord& w) {
  return JsonFields()
      .string("id", w.id)
      .string("name", w.name)
      .string("owner", to_hex(w.owner))
      .string("channel_id", w.channel_id)
      .string("definition", w.definition)
      .string("definition_hash", w.definition_hash)
      .string("status", w.status)
      .number("created_at", w.created_at)
      .number("updated_at", w.updated_at)
      .str();
}

bool decode_workflow(std::string_view value, WorkflowRecord* w) {
  return read_object(value, [&](const FieldReader& r) {
    w->id = r.str("id");
    w->name = r.str("name");
    from_hex(r.str("owner"), &w->owner);
    w->channel_id = r.str("channel_id");
    w->definition = r.str("definition");
    w->definition_hash = r.str("definition_hash");
    w->status = r.str("status");
    w->created_at = r.num("created_at");
    w->updated_at = r.num("updated_at");
  });
}

std::string encode_run(const RunRecord& r) {
  return JsonFields()
      .string("id", r.id)
      .string("workflow_id", r.workflow_id)
      .string("status", run_status_name(r.status))
      .number("current_step", r.current_step)
      .json("execution_trace", r.execution_trace)
      .json("trigger_context", r.trigger_context)
      .string("trigger_kind", r.trigger_kind)
      .string("trigger_event_id", r.trigger_event_id)
      .number("started_at", r.started_at)
      .number("completed_at", r.completed_at)
      .nullable("error_message", r.error_message)
      .number("created_at", r.created_at)
      .number("created_at_ms", r.created_at_ms)
      .number("resume_at", r.resume_at)
      .str();
}

bool decode_run(std::string_view value, RunRecord* r) {
  bool status_ok = true;
  bool ok = read_object(value, [&](const FieldReader& in) {
    r->id = in.str("id");
    r->workflow_id = in.str("workflow_id");
    auto s = parse_run_status(in.str("status"));
    status_ok = s.has_value();
    r->status = s.value_or(RunStatus::kFailed);
    r->current_step = uint32_t(in.num("current_step"));
    r->execution_trace = in.raw("execution_trace", "[]");
    r->trigger_context = in.raw("trigger_context", "{}");
    r->trigger_kind = in.str("trigger_kind");
    r->trigger_event_id = in.str("trigger_event_id");
    r->started_at = in.num("started_at");
    r->completed_at = in.num("completed_at");
    r->error_message = in.opt("error_message");
    r->created_at = in.num("created_at");
    r->created_at_ms = in.num("created_at_ms");
    r->resume_at = in.num("resume_at");
  });
  return ok && status_ok;
}

std::string encode_approval(const ApprovalRecord& a) {
  return JsonFields()
      .string("token", a.token_hash)
      .string("workflow_id", a.workflow_id)
      .string("run_id", a.run_id)
      .string("step_id", a.step_id)
      .number("step_index", a.step_index)
      .string("approver_spec", a.approver_spec)
      .string("status", approval_status_name(a.status))
      .string("approver_pubkey", a.approver_pubkey)
      .nullable("note", a.note)
      .number("granted_at", a.granted_at)
      .number("denied_at", a.denied_at)
      .number("expires_at", a.expires_at)
      .number("created_at", a.created_at)
      .str();
}

bool decode_approval(std::string_view value, ApprovalRecord* a) {
  return read_object(value, [&](const FieldReader& r) {
    a->token_hash = r.str("token");
    a->workflow_id = r.str("workflow_id");
    a->run_id = r.str("run_id");
    a->step_id = r.str("step_id");
    a->step_index = uint32_t(r.num("step_index"));
    a->approver_spec = r.str("approver_spec");
    const std::string s = r.str("status");
    a->status = ApprovalStatus::kPending;
    for (size_t i = 0; i < std::size(kApprovalStatus); ++i) {
      if (kApprovalStatus[i] == s) a->status = ApprovalStatus(i);
    }
    a->approver_pubkey = r.str("approver_pubkey");
    a->note = r.opt("note");
    a->granted_at = r.num("granted_at");
    a->denied_at = r.num("denied_at");
    a->expires_at = r.num("expires_at");
    a->created_at = r.num("created_at");
  });
}

Result<std::vector<WorkflowRecord>> WorkflowTables::workflows() {
  std::vector<WorkflowRecord> out;
  Status s = store_.scan_state_prefix(StateTable::kWorkflows, "w", [&](std::string_view, std::string_view value) {
    WorkflowRecord w;
    if (decode_workflow(value, &w)) out.push_back(std::move(w));
  });
  if (!s) return Error{s.error()};
  return out;
}

std::optional<WorkflowRecord> WorkflowTables::workflow(std::string_view id) {
  auto value = store_.get_state(StateTable::kWorkflows, workflow_key(id));
  WorkflowRecord w;
  if (!value || !decode_workflow(*value, &w)) return std::nullopt;
  return w;
}

Status WorkflowTables::put_workflow(const WorkflowRecord& w) {
  return store_.put_state(StateTable::kWorkflows, workflow_key(w.id), encode_workflow(w));
}

Status WorkflowTables::delete_workflow(std::string_view id) {
  std::vector<StateWrite> writes{{StateTable::kWorkflows, workflow_key(id), ""}};
  std::vector<std::string> run_ids;
  Status s = store_.scan_state_prefix(StateTable::kWorkflows, run_prefix(id), [&](std::string_view key, std::string_view) {
    writes.push_back({StateTable::kWorkflows, std::string(key), ""});
  });
  if (!s) return s;
  auto approvals = all_approvals();
  if (!approvals) return Error{approvals.error()};
  for (const ApprovalRecord& a : *approvals) {
    if (a.workflow_id == id) writes.push_back({StateTable::kWorkflows, approval_key(a.token_hash), ""});
  }
  return store_.put_states(writes);
}

Result<std::vector<RunRecord>> WorkflowTables::runs(std::string_view workflow_id) {
  std::vector<RunRecord> out;
  Status s = store_.scan_state_prefix(StateTable::kWorkflows, run_prefix(workflow_id),
                                      [&](std::string_view, std::string_view value) {
                                        RunRecord r;
                                        if (decode_run(value, &r)) out.push_back(std::move(r));
                                      });
  if (!s) return Error{s.error()};
  std::sort(out.begin(), out.end(), [](const RunRecord& a, const RunRecord& b) {
    return a.created_at_ms != b.created_at_ms ? a.created_at_ms > b.created_at_ms : a.id > b.id;
  });
  return out;
}

std::optional<RunRecord> WorkflowTables::run(std::string_view workflow_id, std::string_view run_id) {
  auto value = store_.get_state(StateTable::kWorkflows, run_key(workflow_id, run_id));
  RunRecord r;
  if (!value || !decode_run(*value, &r)) return std::nullopt;
  return r;
}

Status WorkflowTables::put_run(const RunRecord& r) {
  return store_.put_state(StateTable::kWorkflows, run_key(r.workflow_id, r.id), encode_run(r));
}

Result<std::vector<RunRecord>> WorkflowTables::all_runs() {
  std::vector<RunRecord> out;
  Status s = store_.scan_state_prefix(StateTable::kWorkflows, "r", [&](std::string_view, std::string_view value) {
    RunRecord r;
    if (decode_run(value, &r)) out.push_back(std::move(r));
  });
  if (!s) return Error{s.error()};
  return out;
}

std::optional<ApprovalRecord> WorkflowTables::approval(std::string_view token_hash_hex) {
  auto value = store_.get_state(StateTable::kWorkflows, approval_key(token_hash_hex));
  ApprovalRecord a;
  if (!value || !decode_approval(*value, &a)) return std::nullopt;
  return a;
}

Result<std::vector<ApprovalRecord>> WorkflowTables::all_approvals() {
  std::vector<ApprovalRecord> out;
  Status s = store_.scan_state_prefix(StateTable::kWorkflows, "a", [&](std::string_view, std::string_view value) {
    ApprovalRecord a;
    if (decode_approval(value, &a)) out.push_back(std::move(a));
  });
  if (!s) return Error{s.error()};
  return out;
}

Result<std::vector<ApprovalRecord>> WorkflowTables::approvals(std::string_view workflow_id, std::string_view run_id) {
  auto all = all_approvals();
  if (!all) return all;
  std::vector<ApprovalRecord> out;
  for (ApprovalRecord& a : *all) {
    if (a.workflow_id == workflow_id && a.run_id == run_id) out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const ApprovalRecord& a, const ApprovalRecord& b) {
    return a.step_index != b.step_index ? a.step_index < b.step_index : a.created_at < b.created_at;
  });
  return out;
}

Status WorkflowTables::put_run_and_approval(const RunRecord& r, const ApprovalRecord& a) {
  const StateWrite writes[] = {{StateTable::kWorkflows, run_key(r.workflow_id, r.id), encode_run(r)},
                               {StateTable::kWorkflows, approval_key(a.token_hash), encode_approval(a)}};
  return store_.put_states(writes);
}

Status WorkflowTables::put_approval(const ApprovalRecord& a) {
  return store_.put_state(StateTable::kWorkflows, approval_key(a.token_hash), encode_approval(a));
}

}  // namespace buzz::engine
