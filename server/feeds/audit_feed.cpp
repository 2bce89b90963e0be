// The durable feed into the audit log; see audit_feed.h.
// Pending value (one per batch): u64 first ticket, then per record
// u32 length | event_id \0 kind \0 actor \0 action \0 channel \0 meta. None of
// those fields can hold a NUL byte (hex, decimal, names, a UUID, JSON text).
#include "server/feeds/audit_feed.h"

#include <charconv>
#include <chrono>
#include <thread>

#include "engine/event_record.h"
#include "server/common/log.h"

namespace buzz::server {
namespace {

using engine::AuditRecord;
using engine::StateTable;

void encode_record(const AuditRecord& r, std::string* out) {
  std::string body = r.event_id;
  for (const std::string& field : {std::to_string(r.kind), r.actor, r.action, r.channel, r.meta}) {
    body.push_back('\0');
    body += field;
  }
  engine::put_u32(out, uint32_t(body.size()));
  *out += body;
}

bool decode_record(std::string_view v, AuditRecord* r) {
  std::string* fields[] = {&r->event_id, nullptr, &r->actor, &r->action, &r->channel, &r->meta};
  std::string kind;
  fields[1] = &kind;
  for (size_t i = 0; i < 6; ++i) {
    size_t end = i == 5 ? v.size() : v.find('\0');
    if (end == std::string_view::npos) return false;
    fields[i]->assign(v.substr(0, end));
    v.remove_prefix(i == 5 ? end : end + 1);
  }
  auto [p, ec] = std::from_chars(kind.data(), kind.data() + kind.size(), r->kind);
  return ec == std::errc() && p == kind.data() + kind.size();
}

// Appends the records of one pending value; false if it is damaged.
bool decode_pending(std::string_view v, std::vector<engine::AuditChain::TicketedRecord>* out) {
  if (v.size() < 8) return false;
  uint64_t ticket = engine::get_u64(v.data());
  v.remove_prefix(8);
  while (!v.empty()) {
    if (v.size() < 4 || v.size() - 4 < engine::get_u32(v.data())) return false;
    uint32_t len = engine::get_u32(v.data());
    AuditRecord r;
    if (!decode_record(v.substr(4, len), &r)) return false;
    out->emplace_back(ticket++, std::move(r));
    v.remove_prefix(4 + size_t(len));
  }
  return true;
}

}  // namespace

std::string audit_ticket_key(uint64_t ticket) {
  std::string k;
  engine::put_u64(&k, ticket);
  return k;
}

engine::Status AuditFeed::recover() {
  std::vector<engine::AuditChain::TicketedRecord> pending;
  size_t unreadable = 0;
  engine::Status s = store_.scan_state(StateTable::kAuditPending, [&](std::string_view key, std::string_view value) {
    if (key.size() != 8 || !decode_pending(value, &pending)) ++unreadable;
  });
  if (!s) return s;
  if (unreadable) return engine::Error{"error: " + std::to_string(unreadable) + " unreadable pending audit records"};
  if (!pending.empty()) {
    next_ticket_ = pending.back().first + 1;
    committed_ = pending.back().first;
    log_info("replaying pending audit records", {{"count", std::to_string(pending.size())}});
    log_.replay_pending(std::move(pending));
  }
  return {};
}

void AuditFeed::drain() {
  while (!backlog_.empty()) {
    size_t n = std::min(backlog_.size(), capacity_);
    std::vector<engine::AuditChain::TicketedRecord> piece(std::make_move_iterator(backlog_.begin()),
                                                        std::make_move_iterator(backlog_.begin() + ptrdiff_t(n)));
    if (!log_.try_append(std::move(piece))) {
      std::move(piece.begin(), piece.end(), backlog_.begin());  // untouched on failure: put them back
      return;
    }
    backlog_.erase(backlog_.begin(), backlog_.begin() + ptrdiff_t(n));
  }
}

std::string AuditFeed::refusal() {
  if (!log_.status()) return "error: audit log unavailable";
  drain();
  return backlog_.empty() ? "" : "error: audit backlog full, retry";
}

void AuditFeed::add(AuditRecord record) { batch_.emplace_back(next_ticket_++, std::move(record)); }

std::optional<engine::StateWrite> AuditFeed::pending_write() const {
  if (batch_.empty()) return std::nullopt;
  std::string value;
  engine::put_u64(&value, batch_.front().first);
  for (const auto& [ticket, record] : batch_) encode_record(record, &value);
  return engine::StateWrite{StateTable::kAuditPending, audit_ticket_key(batch_.back().first), std::move(value)};
}

void AuditFeed::commit(bool committed) {
  // Records keep their order: nothing new overtakes a waiting backlog.
  if (committed && !batch_.empty()) committed_ = batch_.back().first;
  if (committed) std::move(batch_.begin(), batch_.end(), std::back_inserter(backlog_));
  batch_.clear();
  drain();
}

void AuditFeed::flush() {
  for (drain(); !backlog_.empty() && log_.status(); drain()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

bool AuditFeed::wait_durable() {
  flush();
  while (durable_.load() < committed_ && log_.status()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return bool(log_.status());
}

void AuditFeed::on_durable(uint64_t ticket) {
  durable_.store(std::max(durable_.load(), ticket));
  if (ticket < erased_below_) return;
  auto s = store_.erase_state(StateTable::kAuditPending, audit_ticket_key(erased_below_), audit_ticket_key(ticket + 1));
  if (!s) {
    // Harmless: the copies are replayed and skipped at the next start.
    log_warn("could not erase pending audit records", {{"error", s.error()}});
    return;
  }
  erased_below_ = ticket + 1;
}

}  // namespace buzz::server
