// The upstream PostgreSQL schema (docs/reference/compat-backends.md §1): the HEAD DDL the
// exporter creates when the target is empty, and the check that tells which
// version a database holds before anything reads or writes it.
#pragma once

#include <string>
#include <vector>

#include "engine/result.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

enum class SchemaVersion { kEmpty, kSeed, kHead };

// schema.sql at HEAD, migration 0001 and the audit_log DDL (docs/reference/audit.md §1.1),
// all idempotent; plus the exporter's own resume table buzz_migrate_progress
// and buzz_event_raw (the exact bytes of events whose JSON the columns cannot
// rebuild). Upstream ignores both.
const std::string& head_schema_sql();

// The audit_log table and its indexes (docs/reference/audit.md §1.1), part of
// head_schema_sql. Upstream's schema.sql lacks it: the original creates it when
// its relay starts, and so does `buzz serve --store` on a database without it.
const std::string& audit_schema_sql();

// The events table's secondary indexes (created on the parent, so every
// partition has them), apart from head_schema_sql: a bulk load into an empty
// table drops them first and builds them once at the end, which is several
// times faster than keeping seven indexes current row by row. One statement
// each (an export builds them over two connections), and all in one.
const std::vector<std::string>& event_index_statements();
const std::string& event_index_sql();
const std::string& event_index_drop_sql();

// The live store's own tables beside the upstream ones (migrate/pg_event_store.h):
// buzz_event_raw, buzz_state (the team state records), buzz_serve_meta, and the
// GIN indexes on events.tags (tag filters) and the content's tsvector (search),
// and delivery_log's index on event_id (receipts, pg_delivery_log.h).
const std::string& serve_schema_sql();

// The words search matches (its GIN index's expression, so queries must use it
// exactly): the first 64 KiB of the content, under tsvector's 1 MiB limit.
inline constexpr const char* kSearchVector = "to_tsvector('simple'::regconfig, left(content, 65536))";

// Empty (no events table), seed-era or HEAD; an error naming the first table or
// column that fits neither.
engine::Result<SchemaVersion> detect_schema(PgConnection& pg);

}  // namespace buzz::migrate
