// Workflows, their runs and their approvals as the original's `workflows`,
// `workflow_runs` and `workflow_approvals` rows (docs/reference/compat-backends.md §1),
// both ways: the COPY rows `buzz migrate export` writes, and the SELECTs and
// row readers `buzz migrate import` uses, so the two directions share one
// mapping. The records are engine/workflow_records.h's.
//
// What the original's columns cannot hold: a run's trigger kind (read back as
// the workflow's own trigger, or "manual" when it has no trigger event and an
// event trigger), and a delay's wake-up time (a run in a delay comes back
// without it, and fails as interrupted at the next start). A run's creation
// order within one second rides in created_at's microseconds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <span>

#include "engine/event_store.h"
#include "engine/result.h"
#include "engine/workflow_records.h"
#include "migrate/copy_row.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

// "table (col, …)" for StepWriter, in the order the append_* functions write.
extern const char* const kWorkflowsCopy;
extern const char* const kWorkflowRunsCopy;
extern const char* const kWorkflowApprovalsCopy;

void append_workflow(CopyRow& r, const engine::WorkflowRecord& w);
void append_run(CopyRow& r, const engine::RunRecord& run);
void append_approval(CopyRow& r, const engine::ApprovalRecord& a);

// The SELECTs whose COPY rows the *_from_row readers take, oldest first.
std::string workflows_select();
std::string workflow_runs_select();
std::string workflow_approvals_select();

// One COPY row's fields (copy_text::split) as a record; the error names the row.
engine::Result<engine::WorkflowRecord> workflow_from_row(const std::vector<std::string>& v, const std::vector<bool>& null);
engine::Result<engine::RunRecord> run_from_row(const std::vector<std::string>& v, const std::vector<bool>& null);
engine::Result<engine::ApprovalRecord> approval_from_row(const std::vector<std::string>& v,
                                                         const std::vector<bool>& null);

// `buzz serve --store postgres://…`: the statements that write a batch's
// workflow records (StateTable::kWorkflows) to the original's three tables as
// well, in the batch's transaction, so an original relay on the same database
// reads them. A workflow's owner gets a stub `users` row; its channel_id is its
// channel's row, which the same relay wrote (pg_team_rows.h), or NULL while
// the `channels` table lacks it (filled in by a later write of the workflow);
// a run or approval whose parent row is missing is skipped.
std::vector<PgConnection::Statement> workflow_mirror_statements(std::span<const engine::StateWrite> writes);

}  // namespace buzz::migrate
