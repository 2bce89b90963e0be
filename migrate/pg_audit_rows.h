// The upstream audit_log table read as entries (docs/reference/audit.md §8.9): by `buzz migrate
// import`, by `buzz audit verify|head|tail --store postgres://…`, and by the live
// chain (pg_audit_chain.h) to find its head.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/audit_entry.h"
#include "engine/audit_verify.h"
#include "engine/result.h"
#include "migrate/pg_connection.h"

namespace buzz::migrate {

// Streams the rows of `SELECT … FROM audit_log <tail>` (tail: a WHERE and an
// ORDER BY, with $n parameters) as entries: ts re-formatted from the stored
// microseconds, meta canonical. `micros` is the stored instant. The hash is
// not checked. visit returns an error to stop with it.
engine::Status each_audit_row(PgConnection& pg, const std::string& tail, const std::vector<std::string>& params,
                              const std::function<engine::Status(engine::AuditEntry& e, int64_t micros)>& visit);

// Upstream hashed nanosecond timestamps but stored microseconds (§3.2): finds
// the 3 lost digits (after this microsecond or, rounded, the one before) and
// sets e.ts; false when no text reproduces e.hash.
bool recover_nanos(engine::AuditEntry& e, int64_t micros);

// §7 on the table: seq contiguous from `from_seq` (anchored on genesis or the
// stored hash of from_seq - 1), every link and recomputed hash.
engine::VerifyReport verify_pg_audit(PgConnection& pg, uint64_t from_seq, uint64_t to_seq);

// The last n entries, oldest first.
engine::Result<std::vector<engine::AuditEntry>> pg_audit_tail(PgConnection& pg, size_t n);

// The row of an entry for COPY into audit_log (timestamp written as ts, exactly).
void append_audit_row(std::string& block, const engine::AuditEntry& e);

}  // namespace buzz::migrate
