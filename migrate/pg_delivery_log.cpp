// The delivery log in the original's delivery_log table; see pg_delivery_log.h.
#include "migrate/pg_delivery_log.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <regex>
#include <unordered_map>

#include "engine/clock.h"
#include "engine/hex.h"
#include "migrate/pg_event_row.h"

namespace buzz::migrate {

using engine::Error;
using engine::Status;

namespace {

// One node at a time maintains the partitions (a transaction-level advisory lock).
constexpr const char* kPartitionLock = "SELECT pg_advisory_xact_lock(6012455564262815079)";
constexpr const char* kCatchAll = "delivery_log_p_future";
constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();

struct Range {
  std::string name;
  int64_t from = kMin, to = kMax;  // [from, to) in unix seconds; MINVALUE and MAXVALUE as the limits
};

int64_t epoch_or(const PgRow& r, size_t col, int64_t unbounded) {
  return r.nulls[col] ? unbounded : std::strtoll(r.values[col].c_str(), nullptr, 10);
}

// The table's partitions with their bounds (a DEFAULT partition has none and is left out).
engine::Result<std::vector<Range>> partitions(PgConnection& pg) {
  auto rows = pg.query(
      "SELECT relname, extract(epoch from lo)::bigint, extract(epoch from hi)::bigint FROM ("
      " SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS b,"
      "  (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']*)''\\)'))[1]::timestamptz AS lo,"
      "  (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']*)''\\)'))[1]::timestamptz AS hi"
      " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'delivery_log'::regclass) p"
      " WHERE b <> 'DEFAULT'");
  if (!rows) return Error{rows.error()};
  std::vector<Range> out;
  for (const PgRow& r : *rows) out.push_back({r.values[0], epoch_or(r, 1, kMin), epoch_or(r, 2, kMax)});
  return out;
}

// The months (UTC) from the one holding `from` to the one holding `to`, each named as the original names them.
engine::Result<std::vector<Range>> months(PgConnection& pg, int64_t from, int64_t to) {
  auto rows = pg.query(
      "SELECT 'delivery_log_' || to_char(m, 'YYYY_MM'), extract(epoch from m)::bigint, "
      "extract(epoch from m + interval '1 month')::bigint FROM generate_series("
      "date_trunc('month', to_timestamp($1::bigint)), date_trunc('month', to_timestamp($2::bigint)), interval '1 month') m",
      {std::to_string(from), std::to_string(to)});
  if (!rows) return Error{rows.error()};
  std::vector<Range> out;
  for (const PgRow& r : *rows) out.push_back({r.values[0], epoch_or(r, 1, kMin), epoch_or(r, 2, kMax)});
  return out;
}

std::string bound(int64_t t) {
  if (t == kMin) return "MINVALUE";
  if (t == kMax) return "MAXVALUE";
  std::string out = "'";
  copy_text::append_timestamp(out, uint64_t(t));
  return out + "'";
}

std::string create_partition(const std::string& name, int64_t from, int64_t to) {
  return "CREATE TABLE " + name + " PARTITION OF delivery_log FOR VALUES FROM (" + bound(from) + ") TO (" +
         bound(to) + ")";
}

bool is_monthly(const std::string& name) {
  static const std::regex monthly("delivery_log_[0-9]{4}_[0-9]{2}");
  return std::regex_match(name, monthly);
}

Status maintain(PgConnection& pg, int64_t from, int64_t now, int64_t cut_off) {
  for (const char* st : {"SET LOCAL TimeZone = 'UTC'", kPartitionLock}) {
    if (Status s = pg.exec(st); !s) return s;
  }
  auto parts = partitions(pg);
  if (!parts) return Error{parts.error()};
  // Retention first: a month dropped here is not one the months below need.
  if (cut_off) {
    for (auto p = parts->begin(); p != parts->end();) {
      if (!is_monthly(p->name) || p->to > cut_off) {
        ++p;
        continue;
      }
      if (Status s = pg.exec("DROP TABLE " + p->name); !s) return s;
      p = parts->erase(p);
    }
    if (Status s = pg.exec("DELETE FROM delivery_log WHERE delivered_at < to_timestamp(" + std::to_string(cut_off) + ")"); !s) {
      return s;
    }
  }
  // The current month and the ones ahead; the catch-all is split when it starts before their end.
  const int64_t last = now + int64_t(kDeliveryMonthsAhead) * 31 * 86400;
  auto ahead = months(pg, now, last);
  if (!ahead) return Error{ahead.error()};
  if (ahead->empty()) return Error{"no month to partition"};
  const auto catch_all = std::find_if(parts->begin(), parts->end(), [](const Range& p) { return p.to == kMax; });
  const bool split = catch_all != parts->end() && catch_all->from != kMin && catch_all->from < ahead->back().to;
  // From the catch-all's start when it is split, so what it covered stays covered;
  // but not from before the cut-off, whose rows are gone and whose months would go next.
  int64_t lowest = split ? std::min(from, catch_all->from) : from;
  if (cut_off > lowest) lowest = cut_off;
  auto wanted = months(pg, lowest, last);
  if (!wanted) return Error{wanted.error()};
  std::vector<std::string> statements;
  if (split) {
    statements.push_back("ALTER TABLE delivery_log DETACH PARTITION " + catch_all->name);
    statements.push_back("ALTER TABLE " + catch_all->name + " RENAME TO buzz_delivery_log_moving");
  }
  int64_t new_start = split ? catch_all->from : 0;
  for (Range m : *wanted) {
    // The catch-all's first month may start mid-month (its bound written in another time zone).
    if (split && m.from < catch_all->from && catch_all->from < m.to) m.from = catch_all->from;
    const bool covered = std::any_of(parts->begin(), parts->end(), [&](const Range& p) {
      return !(split && p.name == catch_all->name) && p.from < m.to && m.from < p.to;
    });
    if (covered) continue;  // its own partition already, or one of the schema's fixed ones
    statements.push_back(create_partition(m.name, m.from, m.to));
    new_start = std::max(new_start, m.to);
  }
  if (split) {
    statements.push_back(create_partition(kCatchAll, new_start, kMax));
    statements.push_back(
        "INSERT INTO delivery_log OVERRIDING SYSTEM VALUE SELECT id, subscription_id, event_id, method, delivered_at, "
        "success, http_status, error_message, attempt_number FROM buzz_delivery_log_moving");
    statements.push_back("DROP TABLE buzz_delivery_log_moving");
  }
  for (const std::string& st : statements) {
    if (Status s = pg.exec(st); !s) return Error{st.substr(0, st.find(" PARTITION OF")) + ": " + s.error()};
  }
  return {};
}

}  // namespace

Status maintain_delivery_partitions(PgConnection& pg, uint64_t from, uint64_t now, uint64_t cut_off) {
  if (Status s = pg.exec("BEGIN"); !s) return Error{"error: delivery_log partitions: " + s.error()};
  Status s = maintain(pg, int64_t(from), int64_t(now), int64_t(cut_off));
  if (s) s = pg.exec("COMMIT");
  if (!s) {
    (void)pg.exec("ROLLBACK");
    return Error{"error: delivery_log partitions: " + s.error()};
  }
  return {};
}

Status PgDeliveryLog::record(std::span<const engine::Delivery> deliveries) {
  if (deliveries.empty()) return {};
  // A member's several sessions or subscriptions in one flush are one row.
  std::vector<std::pair<engine::Id, engine::Pubkey>> rows;
  rows.reserve(deliveries.size());
  for (const engine::Delivery& d : deliveries) rows.emplace_back(d.event, d.member);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  std::string members = "{", events = "{";
  members.reserve(rows.size() * 65 + 2);
  events.reserve(rows.size() * 65 + 2);
  char hex[64];
  for (const auto& [event, member] : rows) {
    if (members.size() > 1) members += ',', events += ',';
    engine::hex_encode(member.data(), 32, hex);
    members.append(hex, 64);
    engine::hex_encode(event.data(), 32, hex);
    events.append(hex, 64);
  }
  members += '}';
  events += '}';
  auto done = with_connection(conns_, [&](PgConnection& pg) -> engine::Result<std::vector<PgRow>> {
    return pg.query("INSERT INTO delivery_log (subscription_id, event_id, method, success) "
                    "SELECT m, decode(e, 'hex'), 'websocket', TRUE FROM unnest($1::text[], $2::text[]) AS d(m, e)",
                    {members, events});
  });
  if (!done) return Error{"error: delivery_log write failed: " + done.error()};
  return {};
}

engine::Result<std::vector<engine::Pubkey>> PgDeliveryLog::delivered_to(const engine::Id& event, uint64_t created_at) {
  const engine::DeliveredQuery q{event, created_at};
  auto each = delivered_to_each({&q, 1});
  if (!each) return Error{each.error()};
  return std::move(each->front());
}

engine::Result<std::vector<std::vector<engine::Pubkey>>> PgDeliveryLog::delivered_to_each(
    std::span<const engine::DeliveredQuery> events) {
  std::vector<std::vector<engine::Pubkey>> out(events.size());
  if (events.empty()) return out;
  std::vector<std::string_view> ids;
  std::unordered_map<engine::Id, std::vector<size_t>, engine::KeyBytesHash> at;  // event -> its places in `out`
  for (size_t i = 0; i < events.size(); ++i) {
    auto& places = at[events[i].event];
    if (places.empty()) ids.emplace_back(reinterpret_cast<const char*>(events[i].event.data()), 32);
    places.push_back(i);
  }
  // Every node's rows (buzz_delivery_log_event, an index of Buzz's own: the original has none on event_id).
  auto rows = with_connection(conns_, [&](PgConnection& pg) {
    return pg.query("SELECT DISTINCT encode(event_id, 'hex'), subscription_id FROM delivery_log "
                    "WHERE event_id = ANY($1::bytea[]) AND method = 'websocket'",
                    {bytea_array(ids)});
  });
  if (!rows) return Error{"error: delivery_log read failed: " + rows.error()};
  for (const PgRow& r : *rows) {
    engine::Id event;
    engine::Pubkey pk;
    if (r.nulls[1] || !engine::from_hex(r.values[0], &event) || !engine::from_hex(r.values[1], &pk)) continue;
    if (auto it = at.find(event); it != at.end()) {
      for (size_t i : it->second) out[i].push_back(pk);
    }
  }
  for (auto& members : out) std::sort(members.begin(), members.end());
  return out;
}

Status PgDeliveryLog::drop_before(uint32_t day) {
  const uint64_t now = engine::unix_now(), cut_off = uint64_t(day) * engine::kSecondsPerDay;
  auto pg = conns_.get();
  if (!pg) return Error{pg.error()};
  Status s = maintain_delivery_partitions(**pg, now, now, cut_off);
  // Once more on a fresh connection when the server went away (a restart, an idle cut).
  if (!s && !(*pg)->alive() && (*pg)->reset()) s = maintain_delivery_partitions(**pg, now, now, cut_off);
  return s;
}

}  // namespace buzz::migrate
