// `buzz migrate import --from postgres://…`: an upstream database (seed-era or
// HEAD schema, docs/reference/compat-backends.md §1.3) into a data directory. Every event is
// rebuilt from its row (or taken from buzz_event_raw), its id and signature
// re-verified, and written through the store's own write path in created_at
// order; team state goes to the state tables; the audit chain is rebuilt into
// segment files with every hash re-checked (docs/reference/audit.md §8.9).
//
// A rerun after an interruption is safe: events already stored are duplicates,
// state writes are idempotent, and the audit log is built aside and moved into
// place only when whole.
#pragma once

#include <cstdint>
#include <string>

#include "engine/result.h"
#include "engine/event_store.h"
#include "migrate/pg_connection.h"
#include "migrate/progress.h"

namespace buzz::migrate {

struct ImportSummary {
  std::string schema;  // "head" or "seed"
  uint64_t events = 0, events_deleted = 0, events_not_stored = 0;
  uint64_t channels = 0, members = 0, users = 0, tokens = 0, threads = 0, relay_members = 0;
  uint64_t workflows = 0, workflow_runs = 0, workflow_approvals = 0;
  uint64_t audit_entries = 0, audit_recovered = 0;  // recovered: upstream's nanosecond timestamps (§3.2)
};

struct PgImportOptions {
  std::string url;
  std::string data_dir;
  size_t batch_rows = 2000;
  unsigned verify_threads = 2;
};

engine::Result<ImportSummary> import_from_postgres(const PgImportOptions& options, Progress& progress);

// The live store's first start over an original's database (pg_event_store.h):
// users, channels, channel_members, thread_metadata and api_tokens of the HEAD
// schema become `store`'s team state, as an import would write them.
engine::Status adopt_team_state(PgConnection& pg, engine::EventStore& store);

}  // namespace buzz::migrate
