// The audit chain in PostgreSQL; see pg_audit_chain.h.
#include "migrate/pg_audit_chain.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <thread>

#include "migrate/pg_audit_rows.h"

namespace buzz::migrate {
namespace {

using engine::Error;
using engine::Status;

// How long the writer keeps retrying a lost database before it fails closed.
constexpr int kRetries = 100;
constexpr auto kRetryPause = std::chrono::milliseconds(100);
constexpr size_t kReplayWindow = 4096;
// docs/reference/audit.md §1: upstream's advisory lock key, "SprutAud".
constexpr const char* kChainLock = "SELECT pg_advisory_xact_lock(6012455564262815076)";

int64_t now_micros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

engine::Result<engine::AuditHead> read_head(PgConnection& pg) {
  auto rows = pg.query("SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1");
  if (!rows) return Error{"cannot read the audit chain's head: " + rows.error()};
  if (rows->empty()) return engine::AuditHead{0, std::string(engine::kAuditGenesisHash)};
  return engine::AuditHead{std::strtoull((*rows)[0].values[0].c_str(), nullptr, 10), (*rows)[0].values[1]};
}

}  // namespace

engine::Result<std::unique_ptr<PgAuditChain>> PgAuditChain::open(const std::string& url, const engine::AuditOptions& opts) {
  auto pg = PgConnection::connect(url, "buzz-serve-audit");
  if (!pg) return Error{pg.error()};
  auto head = read_head(**pg);
  if (!head) return Error{head.error()};
  return std::unique_ptr<PgAuditChain>(new PgAuditChain(url, std::move(*pg), opts, std::move(*head)));
}

PgAuditChain::PgAuditChain(std::string url, std::unique_ptr<PgConnection> pg, engine::AuditOptions opts,
                           engine::AuditHead head)
    : AuditWriter(std::move(opts), std::move(head)), url_(std::move(url)), pg_(std::move(pg)) {
  start();
}

PgAuditChain::~PgAuditChain() { stop(); }  // the writer uses pg_

void PgAuditChain::replay_pending(std::vector<TicketedRecord> pending) {
  if (pending.empty()) return;
  const uint64_t last_ticket = pending.back().first;
  for (TicketedRecord& p : pending) static_cast<void>(engine::normalize_audit_record(p.second));
  auto pg = PgConnection::connect(url_, "buzz-serve-audit");  // the writer's is its own
  if (!pg) return fail(Error{"cannot read the audit chain to replay pending records: " + pg.error()});
  auto tail = pg_audit_tail(**pg, std::max(kReplayWindow, 2 * pending.size()));
  if (!tail) return fail(Error{"cannot read the audit chain to replay pending records: " + tail.error()});
  std::multimap<std::string, const engine::AuditEntry*> chain;  // by event id
  for (const engine::AuditEntry& e : *tail) chain.emplace(e.event_id, &e);
  std::vector<TicketedRecord> missing;
  for (TicketedRecord& p : pending) {
    auto [lo, hi] = chain.equal_range(p.second.event_id);
    auto same = lo;
    while (same != hi && !(p.second == static_cast<const engine::AuditRecord&>(*same->second))) ++same;
    if (same != hi) chain.erase(same);
    else missing.push_back(std::move(p));
  }
  if (missing.empty()) {
    if (opts_.on_durable) opts_.on_durable(last_ticket);
    return;
  }
  requeue(std::move(missing));
}

Status PgAuditChain::write_group(std::vector<TicketedRecord>& group) {
  Status s;
  for (int attempt = 0; attempt < kRetries; ++attempt) {
    if ((s = append_group(group))) break;
    if (pg_->alive() || !pg_->reset()) std::this_thread::sleep_for(kRetryPause);
  }
  return s;
}

// One transaction: the lock, the head, the rows; the head and on_durable move after COMMIT.
// The records are kept until then, so a failed try is repeated whole.
Status PgAuditChain::append_group(std::vector<TicketedRecord>& group) {
  auto rollback = [this](Status s) {
    (void)pg_->exec("ROLLBACK");
    return s;
  };
  if (Status s = pg_->exec("BEGIN"); !s) return s;
  if (Status s = pg_->exec(kChainLock); !s) return rollback(s);
  auto head = read_head(*pg_);
  if (!head) return rollback(Error{head.error()});
  std::string block;
  uint64_t appended = 0;
  for (auto& [ticket, record] : group) {
    engine::AuditRecord r = record;
    if (!engine::normalize_audit_record(r)) continue;
    engine::AuditEntry e;
    static_cast<engine::AuditRecord&>(e) = std::move(r);
    e.seq = head->seq + 1;
    e.ts = engine::audit_timestamp(now_micros());
    e.prev_hash = std::move(head->hash);
    e.hash = engine::audit_hash(e);
    *head = {e.seq, e.hash};
    append_audit_row(block, e);
    ++appended;
  }
  if (appended > 0) {
    CopyFailure failure;
    const char* copy = "COPY audit_log (seq, timestamp, event_id, event_kind, actor_pubkey, action, channel_id, metadata, prev_hash, hash) FROM STDIN";
    if (Status s = pg_->copy_in(copy, block, &failure); !s) return rollback(Error{"audit_log: " + s.error()});
  }
  if (Status s = pg_->exec("COMMIT"); !s) return rollback(s);
  metrics_.entries_written += appended;
  metrics_.records_rejected += group.size() - appended;
  set_durable(std::move(*head));
  if (opts_.on_durable) opts_.on_durable(group.back().first);
  return {};
}

}  // namespace buzz::migrate
