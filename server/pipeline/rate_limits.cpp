#include "server/pipeline/rate_limits.h"

#include <algorithm>

#include "engine/kind_numbers.h"
#include "engine/text.h"

namespace buzz::server {
namespace {

constexpr std::array<std::string_view, kTierCount> kTierNames = {"human", "agent-standard", "agent-elevated",
                                                                 "agent-platform"};

}  // namespace

std::string_view tier_name(Tier t) { return kTierNames[size_t(t)]; }

std::optional<Tier> parse_tier(std::string_view s) {
  for (size_t i = 0; i < kTierCount; ++i) {
    if (kTierNames[i] == s) return Tier(i);
  }
  return std::nullopt;
}

std::string_view rate_limit_name(RateLimit l) {
  switch (l) {
    case RateLimit::kMessages: return "msg";
    case RateLimit::kApiCalls: return "api";
    case RateLimit::kWsEvents: return "ws";
    case RateLimit::kMint: return "mint";
  }
  return "";
}

engine::Status parse_tier_assignments(std::string_view text,
                                      std::unordered_map<engine::Pubkey, Tier, engine::KeyBytesHash>* out) {
  out->clear();
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view entry = engine::trim(text.substr(0, comma), " \t");
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (entry.empty()) continue;
    size_t eq = entry.find('=');
    engine::Pubkey pk;
    std::optional<Tier> tier = eq == std::string_view::npos ? std::nullopt : parse_tier(engine::trim(entry.substr(eq + 1), " \t"));
    if (!tier || !engine::from_hex_any_case(engine::trim(entry.substr(0, eq), " \t"), pk.data(), pk.size())) {
      return engine::Error{"'" + std::string(entry) + "' is not HEX_PUBKEY=TIER (tiers: human, agent-standard, "
                           "agent-elevated, agent-platform)"};
    }
    (*out)[pk] = *tier;
  }
  return {};
}

bool counts_as_message(uint32_t kind) {
  return kind == kind::kTextNote || kind == kind::kReaction || kind == kind::kStreamMessage ||
         (kind >= kind::kStreamMessageV2 && kind <= kind::kDiff) ||
         (kind >= kind::kForumPost && kind <= kind::kForumComment);
}

RateCounters::RateCounters(size_t max_keys) : max_per_shard_(std::max<size_t>(1, max_keys / kShards)) {}

RateCounters::Entry& RateCounters::slot(Shard& shard, const Key& key, uint64_t now_ms) {
  auto it = shard.entries.find(key);
  if (it != shard.entries.end()) return it->second;
  if (shard.entries.size() >= max_per_shard_) {
    const uint64_t now = now_ms / 1000;
    std::erase_if(shard.entries, [&](const auto& kv) {
      return kv.second.tat_ms <= now_ms && kv.second.audited_at + kAuditIntervalSecs <= now;
    });
    // Still full: the table is bounded before it is exact.
    if (shard.entries.size() >= max_per_shard_) shard.entries.erase(shard.entries.begin());
  }
  return shard.entries[key];
}

RateCounters::Outcome RateCounters::acquire(const engine::Pubkey& pk, RateLimit limit, const engine::Rate& rate,
                                            uint64_t now_ms) {
  if (rate.unlimited()) return {};
  const Key key{pk, limit};
  Shard& shard = shard_of(key);
  std::lock_guard lock(shard.mu);
  Entry& e = slot(shard, key, now_ms);
  const engine::GcraStep step = engine::gcra(e.tat_ms, now_ms, rate);
  if (!step.allowed) return {false, engine::wait_secs(step.wait_ms)};
  e.tat_ms = step.tat_ms;
  return {};
}

bool RateCounters::audit_due(const engine::Pubkey& pk, RateLimit limit, uint64_t now) {
  const Key key{pk, limit};
  Shard& shard = shard_of(key);
  std::lock_guard lock(shard.mu);
  Entry& e = slot(shard, key, now * 1000);
  if (e.audited_at != 0 && now < e.audited_at + kAuditIntervalSecs) return false;
  e.audited_at = now;
  return true;
}

}  // namespace buzz::server
