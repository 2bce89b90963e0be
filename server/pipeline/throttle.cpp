// Throttle (docs/reference/protocol.md §14): the three checks the request paths call, and what
// a refusal leaves behind — a reason on the wire, a metric, and at most one
// `rate_limit_exceeded` audit entry per (pubkey, limit) per minute.
#include "server/pipeline/throttle.h"

#include <algorithm>

#include "engine/audit_entry.h"
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/json_text.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/team/team_model.h"

namespace buzz::server {
Tier Throttle::tier_of(const engine::Pubkey& pk) const {
  const auto& assigned = limits_.assigned;
  if (!assigned.empty()) {
    auto it = assigned.find(pk);
    if (it != assigned.end()) return it->second;
  }
  return profiles_.is_agent(pk) ? Tier::kAgentStandard : Tier::kHuman;
}

bool Throttle::administers(const engine::Pubkey& pk) const {
  const std::optional<engine::RelayRole> role = membership_.role(pk);
  return role && *role != engine::RelayRole::kMember;
}

std::optional<uint64_t> Throttle::take(FrameBucket& bucket, uint32_t per_sec, uint32_t burst, const engine::Pubkey& pk,
                                       const Grant& grant) {
  if (!limits_.enabled || per_sec == 0) return std::nullopt;
  // A proxy:submit connection carries many guests' frames (docs/reference/proxy.md §4.3);
  // each guest's messages are still limited by author.
  if (grant.has(Scope::kProxySubmit)) return std::nullopt;
  if (bucket.take(engine::steady_now_ms(), per_sec, float(std::max(burst, per_sec)))) return std::nullopt;
  // Only a connection past the human limit pays for the lookups.
  if (tier_of(pk) != Tier::kHuman || administers(pk)) return std::nullopt;
  note_rate_limited(pk, RateLimit::kWsEvents, "");
  return bucket.wait_secs(per_sec);
}

std::optional<uint64_t> Throttle::admit_write(FrameBucket& bucket, const engine::Pubkey& pk, const Grant& grant) {
  return take(bucket, limits_.human_ws_events_per_sec, limits_.human_ws_events_burst, pk, grant);
}

std::optional<uint64_t> Throttle::admit_read(FrameBucket& bucket, const engine::Pubkey& pk, const Grant& grant) {
  return take(bucket, limits_.human_reads_per_sec, limits_.human_reads_burst, pk, grant);
}

void Throttle::charge_replay(FrameBucket& bucket, size_t events) const {
  // A bucket take() left alone (limits off, an exempt caller) is never charged.
  if (events < kReadUnitEvents) return;
  const float size = float(std::max(limits_.human_reads_burst, limits_.human_reads_per_sec));
  bucket.charge(float(events / kReadUnitEvents), size);
}

std::optional<Verdict> Throttle::admit_message(const engine::Event& e, const engine::Pubkey& submitter,
                                               std::shared_ptr<engine::RateTicket>* ticket) {
  const RateLimitConfig& r = limits_;
  if (!r.enabled || !counts_as_message(e.kind)) return std::nullopt;
  // Only a proxy submission pays for this lookup; the author's own is checked on refusal.
  if (submitter != e.pubkey && administers(submitter)) return std::nullopt;
  const engine::Rate rate = r.messages(tier_of(e.pubkey));
  std::string refusal = "rate-limited: message rate exceeded (" + std::to_string(rate.per_window) + "/min)";
  RateCounters::Outcome o = acquire(e.pubkey, RateLimit::kMessages, rate, ticket);
  if (o.allowed && ticket && *ticket) {
    (*ticket)->refusal = std::move(refusal);
    // Decided on the writer thread, where the event's channel is not resolved again.
    (*ticket)->refusal_stands = [this, pk = e.pubkey] {
      if (administers(pk)) return false;
      note_rate_limited(pk, RateLimit::kMessages, "");
      return true;
    };
  }
  if (o.allowed || administers(e.pubkey)) return std::nullopt;
  // The channel for the audit entry; a refusal is rare, so resolving it (a store read for a reaction) is affordable.
  std::string channel = resolve_channel(e, store_);
  note_rate_limited(e.pubkey, RateLimit::kMessages, engine::is_canonical_uuid(channel) ? channel : "");
  Verdict v{false, std::move(refusal)};
  v.retry_after = o.retry_after;
  return v;
}

std::optional<net::HttpResponse> Throttle::admit_api_call(const engine::Pubkey& pk) {
  const RateLimitConfig& r = limits_;
  if (!r.enabled) return std::nullopt;
  const engine::Rate rate = r.api_calls(tier_of(pk));
  RateCounters::Outcome o = acquire(pk, RateLimit::kApiCalls, rate);
  if (o.allowed) return std::nullopt;
  note_rate_limited(pk, RateLimit::kApiCalls, "");
  net::HttpResponse refusal =
      api_error(429, "rate-limited: API call rate exceeded (" + std::to_string(rate.per_window) + "/min)");
  refusal.headers.emplace_back("Retry-After", std::to_string(o.retry_after));
  return refusal;
}

RateCounters::Outcome Throttle::acquire(const engine::Pubkey& pk, RateLimit limit, const engine::Rate& rate,
                                        std::shared_ptr<engine::RateTicket>* ticket) {
  const uint64_t now_ms = engine::unix_now_ms();
  if (!shared_) return counters_.acquire(pk, limit, rate, now_ms);
  engine::RateDecision d = shared_->acquire(pk, rate_limit_name(limit), rate, now_ms);
  if (ticket) *ticket = std::move(d.ticket);
  return {d.allowed, d.retry_after};
}

void Throttle::note_rate_limited(const engine::Pubkey& pk, RateLimit limit, std::string_view channel) {
  stats_.rate_limited[size_t(limit)].fetch_add(1, std::memory_order_relaxed);
  if (!counters_.audit_due(pk, limit, engine::unix_now())) return;
  engine::AuditRecord record{"", engine::kKindAuditEntry, engine::to_hex(pk),
                             std::string(engine::kActionRateLimitExceeded), std::string(channel),
                             json_object({{"limit", json_string(rate_limit_name(limit))}})};
  if (!writer_.submit_audit(std::move(record))) log_warn("rate-limit refusal not audited: writer queue full");
}

}  // namespace buzz::server
