// audit_log rows as entries; see pg_audit_rows.h.
#include "migrate/pg_audit_rows.h"

#include <cstdio>
#include <cstdlib>

#include "engine/hex.h"
#include "migrate/copy_row.h"

namespace buzz::migrate {

using engine::Error;
using engine::Status;

Status each_audit_row(PgConnection& pg, const std::string& tail, const std::vector<std::string>& params,
                      const std::function<Status(engine::AuditEntry& e, int64_t micros)>& visit) {
  auto rows = pg.query(
      "SELECT seq, (extract(epoch from timestamp) * 1000000)::bigint, event_id, event_kind, actor_pubkey, action, "
      "encode(channel_id, 'hex'), metadata::text, prev_hash, hash FROM audit_log " + tail,
      params);
  if (!rows) return Error{"table audit_log: " + rows.error()};
  for (PgRow& r : *rows) {
    auto& v = r.values;
    engine::AuditEntry e;
    e.seq = std::strtoull(v[0].c_str(), nullptr, 10);
    const int64_t micros = std::strtoll(v[1].c_str(), nullptr, 10);
    e.ts = engine::audit_timestamp(micros);
    e.event_id = std::move(v[2]);
    e.kind = uint32_t(std::strtoul(v[3].c_str(), nullptr, 10));
    e.actor = std::move(v[4]);
    e.action = std::move(v[5]);
    if (!r.nulls[6] && v[6].size() == 32) {
      const std::string& h = v[6];
      e.channel = h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
    }
    auto meta = engine::canonical_json(v[7]);
    if (!meta) return Error{"table audit_log, row seq=" + v[0] + ": metadata: " + meta.error()};
    e.meta = std::move(*meta);
    e.prev_hash = std::move(v[8]);
    e.hash = std::move(v[9]);
    if (Status s = visit(e, micros); !s) return s;
  }
  return {};
}

bool recover_nanos(engine::AuditEntry& e, int64_t micros) {
  for (int64_t us : {micros, micros - 1}) {
    std::string base = engine::audit_timestamp((us / 1000000) * 1000000);  // "…:SS+00:00"
    char frac[24];
    std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>(us % 1000000));
    base.insert(base.size() - 6, frac);
    for (int ns = 1; ns < 1000; ++ns) {
      char digits[16];
      std::snprintf(digits, sizeof digits, "%03d", ns);
      engine::AuditEntry probe = e;
      probe.ts = base;
      probe.ts.insert(probe.ts.size() - 6, digits);
      if (engine::audit_hash(probe) == e.hash) {
        e.ts = probe.ts;
        return true;
      }
    }
  }
  return false;
}

engine::VerifyReport verify_pg_audit(PgConnection& pg, uint64_t from_seq, uint64_t to_seq) {
  engine::VerifyReport report;
  report.last_hash = std::string(engine::kAuditGenesisHash);
  auto fail = [&report](uint64_t seq, std::string why) {
    report.ok = false;
    report.failure.seq = seq;
    report.failure.segment = "audit_log";
    report.failure.error = std::move(why);
    return report;
  };
  std::string prev(engine::kAuditGenesisHash);
  if (from_seq > 1) {
    auto rows = pg.query("SELECT hash FROM audit_log WHERE seq = $1", {std::to_string(from_seq - 1)});
    if (!rows) return fail(from_seq, rows.error());
    if (rows->empty()) return fail(from_seq, "seq " + std::to_string(from_seq - 1) + " is missing");
    prev = (*rows)[0].values[0];
  }
  uint64_t expected = from_seq;
  const std::string to = to_seq > uint64_t(INT64_MAX) ? std::to_string(INT64_MAX) : std::to_string(to_seq);
  Status s = each_audit_row(pg, "WHERE seq >= $1 AND seq <= $2 ORDER BY seq", {std::to_string(from_seq), to},
                            [&](engine::AuditEntry& e, int64_t micros) -> Status {
                              if (e.seq != expected) return Error{"seq gap: expected " + std::to_string(expected)};
                              if (e.prev_hash != prev) return Error{"prev_hash does not link to the previous entry"};
                              if (engine::audit_hash(e) != e.hash && !recover_nanos(e, micros)) {
                                return Error{"hash mismatch (the row is not what was hashed)"};
                              }
                              if (!report.entries++) report.first_seq = e.seq;
                              report.last_seq = e.seq;
                              prev = e.hash;
                              ++expected;
                              return {};
                            });
  if (!s) return fail(expected, s.error());
  report.last_hash = prev;
  return report;
}

engine::Result<std::vector<engine::AuditEntry>> pg_audit_tail(PgConnection& pg, size_t n) {
  std::vector<engine::AuditEntry> out;
  Status s = each_audit_row(pg, "WHERE seq > (SELECT COALESCE(MAX(seq), 0) FROM audit_log) - $1 ORDER BY seq",
                            {std::to_string(n)}, [&](engine::AuditEntry& e, int64_t) -> Status {
                              out.push_back(std::move(e));
                              return {};
                            });
  if (!s) return Error{s.error()};
  return out;
}

void append_audit_row(std::string& block, const engine::AuditEntry& e) {
  CopyRow r(block);
  r.number(int64_t(e.seq)).text(e.ts).text(e.event_id).number(e.kind).text(e.actor).text(e.action);
  if (e.channel.empty()) {
    r.null();
  } else {
    std::string h;
    for (char c : e.channel) {
      if (c != '-') h += c;
    }
    std::array<uint8_t, 16> bytes{};
    engine::hex_decode(h, bytes.data(), bytes.size());
    r.key(bytes);
  }
  r.text(e.meta).text(e.prev_hash).text(e.hash);
}

}  // namespace buzz::migrate
