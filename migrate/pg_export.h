// `buzz migrate export --to postgres://…`: a data directory into the upstream
// HEAD schema (docs/reference/compat-backends.md §1–2, docs/reference/audit.md §8.8), created when absent.
// Steps run in the foreign-key load order of §1.4; each is resumable
// (step_writer.h), so a rerun after an interruption continues without
// duplicates. Offline: the caller has the data directory's store open alone.
#pragma once

#include <cstdint>
#include <string>

#include "engine/result.h"
#include "migrate/progress.h"

namespace buzz::migrate {

struct ExportSummary {
  uint64_t events = 0;
  uint64_t events_raw = 0;      // whose exact JSON went to buzz_event_raw
  uint64_t events_skipped = 0;  // holding U+0000, which PostgreSQL text cannot store
  uint64_t channels = 0, members = 0, users = 0, tokens = 0, threads = 0, relay_members = 0, audit_entries = 0;
  uint64_t workflows = 0, workflow_runs = 0, workflow_approvals = 0;
  uint64_t deliveries = 0;  // delivery_log rows (receipts)
};

struct PgExportOptions {
  std::string data_dir;
  std::string url;
  size_t batch_rows = 5000;
};

engine::Result<ExportSummary> export_to_postgres(const PgExportOptions& options, Progress& progress);

}  // namespace buzz::migrate
