// `buzz audit …`: read-only checks of the hash-chained audit log in
// <data-dir>/audit (docs/reference/audit.md §7), or in PostgreSQL's audit_log with --store.
// Takes no lock, so it is safe while the server runs; a frame still being
// written at the end is simply not counted.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/audit_verify.h"
#include "engine/canonical.h"
#include "engine/json_text.h"
#include "migrate/pg_audit_rows.h"
#include "server/app/cli.h"
#include "server/http/audit_reads.h"

namespace buzz::server {
namespace {

constexpr const char* kAuditUsage = R"(Usage: buzz audit <command> [options]

Commands:
  verify [--from SEQ] [--to SEQ]   check the chain; prints one JSON line, exit 1 if damaged
  tail [-n N | --lines N]          print the last N entries (default 20) as JSON lines
  head                             print the newest entry's {"seq":N,"hash":"…"} for external anchoring

Options:
  --data-dir DIR   data directory (env BUZZ_DATA_DIR, default ./data); the log is DIR/audit
  --store URL      the chain of `buzz serve --store postgres://…` (env BUZZ_STORE): its audit_log table
)";

// A whole decimal number, or nothing.
std::optional<uint64_t> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return {};
  return std::stoull(text);
}

// The chain's storage: a directory of segments, or a PostgreSQL connection.
struct Chain {
  std::string dir;
  std::unique_ptr<migrate::PgConnection> pg;
};

int verify(const Chain& chain, uint64_t from, uint64_t to) {
  engine::VerifyReport r = chain.pg ? migrate::verify_pg_audit(*chain.pg, from, to) : engine::verify_audit(chain.dir, from, to);
  std::printf("%s\n", verify_report_json(r).c_str());
  return r.ok ? kExitOk : kExitFailure;
}

int tail(const Chain& chain, size_t n, bool head_only) {
  auto entries = chain.pg ? migrate::pg_audit_tail(*chain.pg, n) : engine::read_audit_tail(chain.dir, n);
  if (!entries) return std::fprintf(stderr, "buzz audit: %s\n", entries.error().c_str()), kExitFailure;
  if (head_only) {
    const bool empty = entries->empty();
    std::printf("{\"seq\":%llu,\"hash\":\"%s\"}\n", empty ? 0ull : static_cast<unsigned long long>(entries->back().seq),
                empty ? std::string(engine::kAuditGenesisHash).c_str() : entries->back().hash.c_str());
    return kExitOk;
  }
  for (const engine::AuditEntry& e : *entries) std::printf("%s\n", engine::encode_audit_payload(e).c_str());
  return kExitOk;
}

}  // namespace

int run_audit(int argc, char** argv) {
  // `-n N` is the one short option; it means --lines.
  std::vector<char*> args(argv, argv + argc);
  static char kLines[] = "--lines";
  for (char*& a : args) {
    if (std::string(a) == "-n") a = kLines;
  }
  ParsedArgs parsed = parse_args(int(args.size()), args.data(), 2, {}, {"data-dir", "store", "from", "to", "lines"});
  if (!parsed.error.empty()) return usage_error("audit", kAuditUsage, parsed.error);
  if (parsed.has("help") || parsed.positional.empty()) {
    std::fputs(kAuditUsage, parsed.has("help") ? stdout : stderr);
    return parsed.has("help") ? kExitOk : kExitUsage;
  }
  if (parsed.positional.size() > 1) return usage_error("audit", kAuditUsage, "unexpected argument '" + parsed.positional[1] + "'");
  const std::string cmd = parsed.positional[0];
  const char* env_dir = std::getenv("BUZZ_DATA_DIR");
  const char* env_store = std::getenv("BUZZ_STORE");
  Chain chain;
  chain.dir = parsed.get("data-dir").value_or(env_dir ? env_dir : "./data") + "/audit";
  const std::string store = parsed.get("store").value_or(env_store ? env_store : "");

  for (const auto& [key, value] : parsed.options) {
    const bool known = key == "data-dir" || key == "store" || (cmd == "verify" && (key == "from" || key == "to")) ||
                       (cmd == "tail" && key == "lines");
    if (!known) return usage_error("audit", kAuditUsage, "unknown option --" + key + " for '" + cmd + "'");
  }
  if (!store.empty()) {
    auto pg = migrate::PgConnection::connect(store, "buzz-audit");
    if (!pg) return std::fprintf(stderr, "buzz audit: %s\n", pg.error().c_str()), kExitFailure;
    chain.pg = std::move(*pg);
  }
  if (cmd == "verify") {
    auto from = parse_count(parsed.get("from").value_or("1"));
    auto to = parsed.has("to") ? parse_count(*parsed.get("to")) : std::optional<uint64_t>(UINT64_MAX);
    if (!from || *from == 0) return usage_error("audit", kAuditUsage, "--from must be a seq of 1 or more");
    if (!to || *to < *from) return usage_error("audit", kAuditUsage, "--to must be a seq no smaller than --from");
    return verify(chain, *from, *to);
  }
  if (cmd == "tail") {
    auto n = parse_count(parsed.get("lines").value_or("20"));
    if (!n) return usage_error("audit", kAuditUsage, "-n/--lines must be a whole number");
    return tail(chain, *n, false);
  }
  if (cmd == "head") return tail(chain, 1, true);
  return usage_error("audit", kAuditUsage, "unknown command '" + cmd + "'");
}

}  // namespace buzz::server
