// Workflow records (docs/reference/workflows.md §1, §11, §13): the stored workflow, its runs
// and its approvals, in the `workflows` column family, each under a key
// prefix so one workflow's runs and one run's approvals are one range scan:
//
//   'w' workflow id                     -> workflow record
//   'r' workflow id  run id             -> run record
//   'a' SHA-256(raw approval token) hex -> approval record
//
// Values are JSON objects (readable with `ldb`, tolerant of added fields).
// Deleting a workflow removes its runs and approvals in the same batch.
//
// Threads: any; each call is one RocksDB read or one atomic batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/result.h"

namespace buzz::engine {

// A workflow's status, as the original's `workflow_status` enum names them
// (docs/reference/compat-backends.md §1): only an active one fires; an
// archived one is also read-only and left out of listings unless asked for.
inline constexpr std::string_view kWorkflowActive = "active", kWorkflowDisabled = "disabled",
                                  kWorkflowArchived = "archived";
inline bool is_workflow_status(std::string_view s) {
  return s == kWorkflowActive || s == kWorkflowDisabled || s == kWorkflowArchived;
}

struct WorkflowRecord {
  std::string id;
  std::string name;
  Pubkey owner{};
  std::string channel_id;  // empty = unbound
  std::string definition;  // canonical JSON, "_webhook_secret" included
  std::string definition_hash;  // hex SHA-256 of `definition`
  std::string status{kWorkflowActive};
  uint64_t created_at = 0;
  uint64_t updated_at = 0;
};

enum class RunStatus : uint8_t { kPending, kRunning, kWaitingApproval, kCompleted, kFailed, kCancelled };
std::string_view run_status_name(RunStatus s);
std::optional<RunStatus> parse_run_status(std::string_view s);
inline bool is_final(RunStatus s) {
  return s == RunStatus::kCompleted || s == RunStatus::kFailed || s == RunStatus::kCancelled;
}

struct RunRecord {
  std::string id;
  std::string workflow_id;
  RunStatus status = RunStatus::kPending;
  uint32_t current_step = 0;
  std::string execution_trace = "[]";  // JSON array
  std::string trigger_context = "{}";  // JSON object (§5.2)
  std::string trigger_kind;            // message_posted, schedule, webhook, manual, ...
  std::string trigger_event_id;        // hex, empty when none
  uint64_t started_at = 0;             // 0 = not yet
  uint64_t completed_at = 0;
  std::optional<std::string> error_message;
  uint64_t created_at = 0;
  uint64_t created_at_ms = 0;  // orders runs created within one second
  // A `delay` in progress: when step current_step ends (a restart resumes then).
  uint64_t resume_at = 0;
};

enum class ApprovalStatus : uint8_t { kPending, kGranted, kDenied, kExpired };
std::string_view approval_status_name(ApprovalStatus s);

struct ApprovalRecord {
  std::string token_hash;  // hex SHA-256 of the raw token
  std::string workflow_id;
  std::string run_id;
  std::string step_id;
  uint32_t step_index = 0;
  std::string approver_spec;  // "any" or 64 lowercase hex
  ApprovalStatus status = ApprovalStatus::kPending;
  std::string approver_pubkey;  // hex, empty until acted on
  std::optional<std::string> note;
  uint64_t granted_at = 0, denied_at = 0;
  uint64_t expires_at = 0;
  uint64_t created_at = 0;
};

std::string encode_workflow(const WorkflowRecord& w);
bool decode_workflow(std::string_view value, WorkflowRecord* out);
std::string encode_run(const RunRecord& r);
bool decode_run(std::string_view value, RunRecord* out);
std::string encode_approval(const ApprovalRecord& a);
bool decode_approval(std::string_view value, ApprovalRecord* out);

class WorkflowTables {
 public:
  explicit WorkflowTables(EventStore& store) : store_(store) {}

  Result<std::vector<WorkflowRecord>> workflows();
  std::optional<WorkflowRecord> workflow(std::string_view id);
  Status put_workflow(const WorkflowRecord& w);
  // The workflow, its runs and its approvals, in one batch.
  Status delete_workflow(std::string_view id);

  // One workflow's runs, newest first.
  Result<std::vector<RunRecord>> runs(std::string_view workflow_id);
  std::optional<RunRecord> run(std::string_view workflow_id, std::string_view run_id);
  Status put_run(const RunRecord& r);
  // Every run of every workflow (start-up recovery).
  Result<std::vector<RunRecord>> all_runs();

  std::optional<ApprovalRecord> approval(std::string_view token_hash_hex);
  // A run's approvals by step index, then creation.
  Result<std::vector<ApprovalRecord>> approvals(std::string_view workflow_id, std::string_view run_id);
  Result<std::vector<ApprovalRecord>> all_approvals();
  // A run and an approval in one batch (a run parking on, or acted on by, an approval).
  Status put_run_and_approval(const RunRecord& r, const ApprovalRecord& a);
  Status put_approval(const ApprovalRecord& a);

 private:
  EventStore& store_;
};

}  // namespace buzz::engine
