// Approval gates (docs/reference/workflows.md §11.2, docs/reference/rest-api.md §3.14): a request_approval
// step parks its run in `waiting_approval` with a pending approval (one
// batch), announces it (kind 46010, and a DM with the raw token to a named
// approver); grant resumes the run at the next step, deny cancels it, expiry
// (the scheduler's tick) fails it. The raw token is never stored or logged:
// only its SHA-256. A decision is single use: approvals_mu_ makes the
// pending → decided change a compare-and-set.
#include <simdjson.h>

#include "engine/canonical.h"
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/hex.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/nip19.h"
#include "engine/text.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/workflows/duration.h"
#include "server/workflows/template.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

constexpr std::string_view kDefaultTimeout = "24h";

// An npub (NIP-19) as lowercase hex, or "".
std::string npub_to_hex(std::string_view npub) {
  auto key = engine::decode_bech32_key(npub, "npub");
  return key ? engine::to_hex(key->data(), key->size()) : std::string();
}

std::string decision_output(bool approved, const std::string& approver, const std::optional<std::string>& note) {
  return output_json({{"approved", OutputValue::boolean(approved)},
                      {"approver", OutputValue::string(approver)},
                      {"note", note ? OutputValue::string(*note) : OutputValue::null()}});
}

}  // namespace

std::optional<std::string> Workflows::request_approval(RunJob& job, size_t step_index, const Step& step) {
  const std::string timeout_text = step.field("timeout").value_or(std::string(kDefaultTimeout));
  auto timeout = parse_duration(timeout_text);
  if (!timeout) return "invalid definition: " + timeout.error();
  auto from = render_template(step.field("from").value_or(""), job.context);
  if (!from) return from.error();
  auto message = render_template(step.field("message").value_or(""), job.context);
  if (!message) return message.error();
  // The approver spec: anyone with access, or one pubkey (hex or npub).
  std::string spec(from->begin(), from->end());
  spec.erase(0, spec.find_first_not_of(" \t\r\n"));
  spec.erase(spec.find_last_not_of(" \t\r\n") + 1);
  if (spec.empty() || spec == "any") {
    spec = "any";
  } else if (engine::is_hex64(spec)) {
    spec = engine::lower(spec);
  } else if (std::string hex = npub_to_hex(spec); !hex.empty()) {
    spec = hex;
  } else {
    return "invalid definition: unsupported approver spec '" + spec + "'";
  }
  // The token exists only here and in the approver's DM.
  const std::string raw_token = engine::random_uuid();
  const uint64_t now = engine::unix_now();
  engine::ApprovalRecord a;
  a.token_hash = engine::sha256_hex(raw_token);
  a.workflow_id = job.workflow->record.id;
  a.run_id = job.run.id;
  a.step_id = step.id;
  a.step_index = uint32_t(step_index);
  a.approver_spec = spec;
  a.expires_at = now + *timeout;
  a.created_at = now;
  job.run.status = engine::RunStatus::kWaitingApproval;
  job.run.current_step = uint32_t(step_index);
  {
    std::lock_guard lock(approvals_mu_);
    if (auto s = tables_.put_run_and_approval(job.run, a); !s) return "database error: " + s.error();
  }
  approvals_pending_.fetch_add(1, std::memory_order_relaxed);
  job.parked = true;
  const std::string notify = spec == "any" ? engine::to_hex(job.workflow->record.owner) : spec;
  publish_run_event(
      job, kind::kApprovalRequested,
      {{"step", step.id}, {"approval", a.token_hash}, {"p", notify}, {"expiration", std::to_string(a.expires_at)}},
      *message);
  // A named approver also gets the raw token, privately (Buzz decision, §11.2 step 6).
  if (spec != "any" && spec != engine::to_hex(job.workflow->record.owner)) {
    const std::string text = *message + "\n\nApprove: POST " + options_.public_http_url + "/api/approvals/" + raw_token +
                             "/grant\nDeny: POST " + options_.public_http_url + "/api/approvals/" + raw_token + "/deny";
    engine::Pubkey approver;
    engine::from_hex_any_case(spec, approver.data(), approver.size());
    send_approval_dm(job, approver, text);
  }
  return std::nullopt;
}

std::optional<Workflows::ApprovalRefusal> Workflows::record_decision(const engine::Pubkey& who, const ChannelCheck& can_read,
                                                                    const std::string& hash, bool grant,
                                                                    std::optional<std::string> note,
                                                                    engine::ApprovalRecord* out) {
  const std::string who_hex = engine::to_hex(who);
  const uint64_t now = engine::unix_now();
  engine::ApprovalRecord& a = *out;
  {
    // exists → pending → not expired → approver spec → channel access → compare-and-set (§3.14).
    std::lock_guard lock(approvals_mu_);
    auto found = tables_.approval(hash);
    if (!found) return ApprovalRefusal{404, "approval not found", "invalid: approval not found"};
    a = std::move(*found);
    if (a.status != engine::ApprovalStatus::kPending) {
      const std::string already = "approval already " + std::string(engine::approval_status_name(a.status));
      return ApprovalRefusal{409, already, "invalid: " + already};
    }
    if (now > a.expires_at) return ApprovalRefusal{410, "approval token has expired", "invalid: approval token has expired"};
    const ApprovalRefusal not_approver{403, "you are not the designated approver for this request",
                                       "forbidden: not the designated approver for this request"};
    if (a.approver_spec != "any") {
      if (!engine::is_hex64(a.approver_spec)) {
        const std::string unsupported = "approver spec '" + a.approver_spec +
                                        "' is not yet supported — only 'any' or a specific pubkey hex are currently accepted";
        return ApprovalRefusal{403, unsupported, "forbidden: " + unsupported};
      }
      if (a.approver_spec != who_hex) return not_approver;
    }
    WorkflowPtr w = find(a.workflow_id);
    if (!w) return ApprovalRefusal{404, "approval not found", "invalid: approval not found"};
    // Buzz: the approver must be able to read the workflow's channel.
    if (!w->record.channel_id.empty() && !can_read(w->record.channel_id)) return not_approver;
    a.status = grant ? engine::ApprovalStatus::kGranted : engine::ApprovalStatus::kDenied;
    a.approver_pubkey = who_hex;
    a.note = std::move(note);
    (grant ? a.granted_at : a.denied_at) = now;
    if (auto s = tables_.put_approval(a); !s) {
      return ApprovalRefusal{500, "database error: " + s.error(), "error: database error"};
    }
  }
  approvals_pending_.fetch_sub(1, std::memory_order_relaxed);
  decide(a, grant);
  return std::nullopt;
}

net::HttpResponse Workflows::act_on_approval(const WorkflowCaller& who, std::string_view key, bool by_hash, bool grant,
                                             const net::HttpRequest& req) {
  std::string hash;
  if (by_hash) {
    if (!engine::is_hex64(key)) return api_error(400, "invalid hex token hash");
    hash = engine::lower(key);
  } else {
    hash = engine::sha256_hex(key);
  }
  std::optional<std::string> note;
  if (!req.body.empty()) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(req.body).get(doc)) return api_error(400, "invalid JSON body");
    std::string_view n;
    if (!doc["note"].get_string().get(n)) note = std::string(n);
  }
  engine::ApprovalRecord a;
  auto can_read = [&](std::string_view channel) { return !who.check_channel(channel); };
  if (auto refused = record_decision(who.pubkey, can_read, hash, grant, std::move(note), &a)) {
    return api_error(refused->status, refused->rest);
  }
  return net::HttpResponse::json(202, json_object({{"status", json_string(grant ? "granted" : "denied")},
                                                   {"run_id", json_string(a.run_id)},
                                                   {"workflow_id", json_string(a.workflow_id)}}));
}

void Workflows::append_decision(RunJob& job, const engine::ApprovalRecord& a, bool granted) {
  append_trace(job.run, json_object({{"output", decision_output(granted, a.approver_pubkey, a.note)},
                                     {"status", json_string(granted ? "completed" : "denied")},
                                     {"step_id", json_string(a.step_id)}}));
  job.context.outputs = outputs_from_trace(job.run.execution_trace);
}

void Workflows::decide(const engine::ApprovalRecord& a, bool grant) {
  WorkflowPtr w = find(a.workflow_id);
  if (!w) return;
  std::lock_guard lock(approvals_mu_);
  auto run = tables_.run(a.workflow_id, a.run_id);
  // Only a run still waiting moves: anything else makes this approval stale.
  if (!run || run->status != engine::RunStatus::kWaitingApproval) return;
  RunJob job{w, std::move(*run), {}, a.step_index + 1, false};
  job.after_approval = grant;
  job.context.trigger = TriggerContext::from_json(job.run.trigger_context);
  append_decision(job, a, grant);
  std::vector<engine::Tag> tags = {{"step", a.step_id}, {"approval", a.token_hash}, {"p", a.approver_pubkey}};
  // The decision's event_created names the approver: every grant and denial is in the audit chain.
  engine::Pubkey approver{};
  engine::from_hex(a.approver_pubkey, &approver);
  if (grant) {
    job.run.status = engine::RunStatus::kRunning;
    save(job.run);
    publish_run_event(job, kind::kApprovalGranted, std::move(tags), a.note.value_or(""), approver);
    launch(std::move(job));
    return;
  }
  publish_run_event(job, kind::kApprovalDenied, std::move(tags), a.note.value_or(""), approver);
  finish(job, engine::RunStatus::kCancelled, "workflow cancelled: approval denied by " + a.approver_pubkey);
  publish_run_event(job, kind::kWorkflowCancelled, {}, json_object({{"reason", json_string("approval denied")}}));
}

void Workflows::expire_approvals(uint64_t now) {
  if (approvals_pending_.load(std::memory_order_relaxed) == 0) return;
  auto all = tables_.all_approvals();
  if (!all) return;
  for (engine::ApprovalRecord& a : *all) {
    if (a.status != engine::ApprovalStatus::kPending || a.expires_at >= now) continue;
    std::lock_guard lock(approvals_mu_);
    auto current = tables_.approval(a.token_hash);
    if (!current || current->status != engine::ApprovalStatus::kPending) continue;  // decided meanwhile
    a.status = engine::ApprovalStatus::kExpired;
    if (auto s = tables_.put_approval(a); !s) continue;
    approvals_pending_.fetch_sub(1, std::memory_order_relaxed);
    WorkflowPtr w = find(a.workflow_id);
    auto run = tables_.run(a.workflow_id, a.run_id);
    if (!w || !run || run->status != engine::RunStatus::kWaitingApproval) continue;
    RunJob job{w, std::move(*run), {}, a.step_index, false};
    publish_run_event(job, kind::kApprovalDenied,
                      {{"step", a.step_id}, {"approval", a.token_hash}, {"p", engine::to_hex(w->record.owner)}},
                      R"({"reason":"expired"})");
    finish(job, engine::RunStatus::kFailed, "approval for step '" + a.step_id + "' expired");
  }
}

}  // namespace buzz::server
