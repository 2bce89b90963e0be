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
#include <vector>

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
  uint64_t deliveries = 0;  // delivery_log rows read back into <data-dir>/deliveries
};

struct PgImportOptions {
  std::string url;
  std::string data_dir;
  size_t batch_rows = 2000;
  unsigned verify_threads = 2;
};

engine::Result<ImportSummary> import_from_postgres(const PgImportOptions& options, Progress& progress);

// The team state of an original's tables, as the state rows an import writes
// (written by the caller): channels and channel_members, and with kAll users,
// thread_metadata and api_tokens too (`store` answers the replies' lookups).
// The live store adopts kAll on its first start (pg_event_store.h); the
// start-up reconciliation reads kChannels again and again (BUZZ_RECONCILE_CHANNELS).
enum class TeamTables : uint8_t { kAll, kChannels };
engine::Result<std::vector<engine::StateWrite>> original_team_state(PgConnection& pg, engine::EventStore& store,
                                                                    TeamTables tables);

}  // namespace buzz::migrate
