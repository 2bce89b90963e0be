// `buzz migrate export|import`: moves a data directory to and from the
// upstream PostgreSQL schema, NIP-01 JSON lines and Typesense's import format
// (migrate/README.md). Offline: the server must be stopped (the store's lock
// says so otherwise). The work is in migrate/; this file reads the command line
// and prints the outcome.
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/json_text.h"
#include "migrate/jsonl.h"
#include "migrate/pg_connection.h"
#include "migrate/pg_export.h"
#include "migrate/pg_import.h"
#include "migrate/typesense_export.h"
#include "server/app/cli.h"

namespace buzz::server {
namespace {

constexpr const char* kMigrateHead = R"(Usage:
  buzz migrate export --data-dir DIR --to postgres://USER:PASS@HOST:PORT/DB
  buzz migrate export --data-dir DIR --to jsonl FILE
  buzz migrate export --data-dir DIR --to typesense-jsonl OUTDIR [--collection NAME]
  buzz migrate import --from postgres://… --data-dir DIR
  buzz migrate import --from jsonl FILE --data-dir DIR

Moves a data directory to and from the upstream Buzz deployment's storage.
Run it with the server stopped.

  postgres://…      the upstream HEAD schema (created when absent): users, channels,
                    members, events (partitioned), threads, API token hashes, relay
                    members, workflows with their runs and approvals, the receipts'
                    deliveries (delivery_log), the audit log with its hashes.
                    Batches of COPY, each its own transaction; a rerun after an
                    interruption resumes where it stopped. Import
                    reads the seed-era or the HEAD schema, re-verifies every event
                    and every audit hash.
  jsonl FILE        NIP-01 events, one per line (strfry / nostr-rs-relay); FILE - is
                    stdin/stdout. Import checks each signature; it stores events only.
  typesense-jsonl   OUTDIR/collection.json and OUTDIR/documents.jsonl for Typesense
                    (load commands in migrate/README.md).
)";

const options::Option kMigrateOptions[] = {
    {.name = "data-dir", .env = "BUZZ_DATA_DIR", .value = "DIR", .default_text = "./data", .help = "data directory"},
    {.name = "to", .value = "WHERE", .help = "export: postgres://…, jsonl FILE or typesense-jsonl OUTDIR"},
    {.name = "from", .value = "WHERE", .help = "import: postgres://… or jsonl FILE"},
    {.name = "batch", .value = "N", .default_text = "5000",
     .help = "rows per PostgreSQL batch/transaction (an import writes at most 2000 per store batch)"},
    {.name = "collection", .env = "TYPESENSE_COLLECTION", .value = "NAME", .default_text = "events",
     .help = "Typesense collection name"},
    {.name = "json", .help = "progress and the result as JSON lines on stdout"},
};

constexpr const char* kMigrateTail = "\nExit status: 0 done, 1 failed (the message names the table and row), 2 usage.\n";

std::string migrate_usage() { return usage_text(kMigrateHead, kMigrateOptions, kMigrateTail); }

bool is_postgres_url(const std::string& s) { return s.rfind("postgres://", 0) == 0 || s.rfind("postgresql://", 0) == 0; }

// The result: one JSON line, or one plain line.
int report(bool json, const std::string& what, const std::vector<std::pair<std::string, uint64_t>>& counts) {
  if (json) {
    std::vector<std::pair<std::string, std::string>> fields = {{"ok", "true"}, {"result", json_string(what)}};
    for (const auto& [k, v] : counts) fields.emplace_back(k, std::to_string(v));
    std::printf("%s\n", json_object(fields).c_str());
  } else {
    std::string line = what + ":";
    for (const auto& [k, v] : counts) line += " " + std::to_string(v) + " " + k + ",";
    line.pop_back();
    std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

int failure(bool json, const std::string& why) {
  if (json) std::printf("%s\n", JsonFields().boolean("ok", false).string("error", why).str().c_str());
  std::fprintf(stderr, "buzz migrate: %s\n", why.c_str());
  return kExitFailure;
}

}  // namespace

int run_migrate(int argc, char** argv) {
  ParsedArgs args = parse_args(argc, argv, 2, kMigrateOptions);
  if (args.has("help")) return std::fputs(migrate_usage().c_str(), stdout), kExitOk;
  if (!args.error.empty()) return usage_error("migrate", migrate_usage(), args.error);
  if (args.positional.empty()) return usage_error("migrate", migrate_usage(), "export or import?");
  const std::string cmd = args.positional[0];
  const bool json = args.has("json");
  migrate::Progress progress(migrate::Progress::mode_for(json));
  const std::string data_dir = args.get("data-dir").value_or("./data");
  const std::string batch_text = args.get("batch").value_or("5000");
  size_t batch = 0;
  auto [end, ec] = std::from_chars(batch_text.data(), batch_text.data() + batch_text.size(), batch);
  if (ec != std::errc() || end != batch_text.data() + batch_text.size() || batch == 0) {
    return usage_error("migrate", migrate_usage(), "--batch must be a whole number above 0, not '" + batch_text + "'");
  }
  // "--to jsonl FILE": the format, then its path as the one extra argument.
  const std::string where = cmd == "export" ? args.get("to").value_or("") : args.get("from").value_or("");
  const bool needs_path = where == "jsonl" || where == "typesense-jsonl";
  if (args.positional.size() != (needs_path ? 2u : 1u)) {
    return usage_error("migrate", migrate_usage(), needs_path ? "--" + std::string(cmd == "export" ? "to " : "from ") + where + " needs a path"
                                  : "unexpected argument '" + args.positional.back() + "'");
  }
  const std::string path = needs_path ? args.positional[1] : "";

  if (cmd == "export") {
    // Opening the store would create an empty one at a mistyped path.
    std::error_code ec;
    if (!std::filesystem::exists(data_dir + "/db", ec)) return failure(json, "no data directory at " + data_dir + " (no db/ inside)");
    if (is_postgres_url(where)) {
      auto r = migrate::export_to_postgres({data_dir, where, batch}, progress);
      if (!r) return failure(json, r.error());
      return report(json, "exported to " + migrate::redact_url(where),
                    {{"users", r->users}, {"channels", r->channels}, {"members", r->members}, {"events", r->events},
                     {"events_raw", r->events_raw}, {"events_skipped_nul", r->events_skipped}, {"threads", r->threads},
                     {"tokens", r->tokens}, {"relay_members", r->relay_members}, {"workflows", r->workflows},
                     {"workflow_runs", r->workflow_runs}, {"workflow_approvals", r->workflow_approvals},
                     {"deliveries", r->deliveries}, {"audit_entries", r->audit_entries}});
    }
    if (where == "jsonl") {
      auto r = migrate::export_jsonl(data_dir, path, progress);
      if (!r) return failure(json, r.error());
      // With FILE -, stdout carries the events: the summary goes to stderr.
      if (path == "-") return std::fprintf(stderr, "exported %llu events\n", static_cast<unsigned long long>(r->events)), kExitOk;
      return report(json, "exported to " + path, {{"events", r->events}});
    }
    if (where == "typesense-jsonl") {
      const std::string collection = args.get("collection").value_or("events");
      auto r = migrate::export_typesense(data_dir, path, collection, progress);
      if (!r) return failure(json, r.error());
      return report(json, "exported to " + path, {{"documents", *r}});
    }
    return usage_error("migrate", migrate_usage(), "--to must be postgres://…, jsonl FILE or typesense-jsonl DIR");
  }
  if (cmd == "import") {
    if (is_postgres_url(where)) {
      auto r = migrate::import_from_postgres({where, data_dir, batch < 2000 ? batch : 2000, 2}, progress);
      if (!r) return failure(json, r.error());
      return report(json, "imported the " + r->schema + " schema into " + data_dir,
                    {{"users", r->users}, {"channels", r->channels}, {"members", r->members}, {"events", r->events},
                     {"events_deleted", r->events_deleted}, {"events_not_stored", r->events_not_stored},
                     {"threads", r->threads}, {"tokens", r->tokens}, {"relay_members", r->relay_members},
                     {"workflows", r->workflows}, {"workflow_runs", r->workflow_runs},
                     {"workflow_approvals", r->workflow_approvals}, {"deliveries", r->deliveries},
                     {"audit_entries", r->audit_entries}, {"audit_recovered_ns", r->audit_recovered}});
    }
    if (where == "jsonl") {
      auto r = migrate::import_jsonl(path, data_dir, progress);
      if (!r) return failure(json, r.error());
      return report(json, "imported into " + data_dir, {{"events", r->events}, {"not_stored", r->not_stored}});
    }
    return usage_error("migrate", migrate_usage(), "--from must be postgres://… or jsonl FILE");
  }
  return usage_error("migrate", migrate_usage(), "unknown command '" + cmd + "'");
}

}  // namespace buzz::server
