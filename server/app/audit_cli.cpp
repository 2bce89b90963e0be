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

constexpr const char* kAuditHead = R"(Usage: buzz audit <command> [options]

Commands:
  verify [--from SEQ] [--to SEQ]   check the chain; prints one JSON line, exit 1 if damaged
  tail [-n N | --lines N]          print the last N entries (default 20) as JSON lines
  head                             print the newest entry's {"seq":N,"hash":"…"} for external anchoring
)";

const options::Option kAuditOptions[] = {
    {.name = "data-dir", .env = "BUZZ_DATA_DIR", .value = "DIR", .default_text = "./data",
     .help = "data directory; the log is DIR/audit"},
    {.name = "store", .env = "BUZZ_STORE", .value = "URL",
     .help = "the chain of `buzz serve --store postgres://…`: its audit_log table"},
    {.name = "from", .value = "SEQ", .default_text = "1", .help = "verify: the first entry checked"},
    {.name = "to", .value = "SEQ", .help = "verify: the last entry checked (default the head)"},
    {.name = "lines", .short_name = 'n', .value = "N", .default_text = "20", .help = "tail: the entries printed"},
};

std::string audit_usage() { return usage_text(kAuditHead, kAuditOptions); }

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
    const std::string head = JsonFields()
                                 .number("seq", empty ? 0 : entries->back().seq)
                                 .string("hash", empty ? std::string(engine::kAuditGenesisHash) : entries->back().hash)
                                 .str();
    std::printf("%s\n", head.c_str());
    return kExitOk;
  }
  for (const engine::AuditEntry& e : *entries) std::printf("%s\n", engine::encode_audit_payload(e).c_str());
  return kExitOk;
}

}  // namespace

int run_audit(int argc, char** argv) {
  ParsedArgs parsed = parse_args(argc, argv, 2, kAuditOptions);
  if (auto done = without_subcommand("audit", audit_usage(), parsed)) return *done;
  if (parsed.positional.size() > 1) return usage_error("audit", audit_usage(), "unexpected argument '" + parsed.positional[1] + "'");
  const std::string cmd = parsed.positional[0];
  Chain chain;
  chain.dir = parsed.get("data-dir").value_or("./data") + "/audit";
  const std::string store = parsed.get("store").value_or("");

  for (const std::string& key : parsed.given) {
    const bool known = key == "data-dir" || key == "store" || (cmd == "verify" && (key == "from" || key == "to")) ||
                       (cmd == "tail" && key == "lines");
    if (!known) return usage_error("audit", audit_usage(), "unknown option --" + key + " for '" + cmd + "'");
  }
  if (!store.empty()) {
    auto pg = migrate::PgConnection::connect(store, "buzz-audit");
    if (!pg) return std::fprintf(stderr, "buzz audit: %s\n", pg.error().c_str()), kExitFailure;
    chain.pg = std::move(*pg);
  }
  if (cmd == "verify") {
    auto from = parse_count(parsed.get("from").value_or("1"));
    auto to = parsed.has("to") ? parse_count(*parsed.get("to")) : std::optional<uint64_t>(UINT64_MAX);
    if (!from || *from == 0) return usage_error("audit", audit_usage(), "--from must be a seq of 1 or more");
    if (!to || *to < *from) return usage_error("audit", audit_usage(), "--to must be a seq no smaller than --from");
    return verify(chain, *from, *to);
  }
  if (cmd == "tail") {
    auto n = parse_count(parsed.get("lines").value_or("20"));
    if (!n) return usage_error("audit", audit_usage(), "-n/--lines must be a whole number");
    return tail(chain, *n, false);
  }
  if (cmd == "head") return tail(chain, 1, true);
  return usage_error("audit", audit_usage(), "unknown command '" + cmd + "'");
}

}  // namespace buzz::server
