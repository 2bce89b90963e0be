// Throttle: the per-tier rate limits of docs/reference/protocol.md §14 applied to callers —
// WebSocket frames, messages and HTTP API calls. Each check counts one use and
// answers whether it may proceed; a refusal is counted (buzz_rate_limited_total)
// and audited at most once per (pubkey, limit) per minute, and says how long
// to wait.
//
// A human connection's frames fill two token buckets, writes and reads apart:
// EVENT frames one each; REQ, COUNT and NEG-OPEN by what they cost the relay —
// one unit as they arrive, and one more per kReadUnitEvents events a replay
// sent — so a client may open all its subscriptions at connect while a
// connection that keeps pulling history is slowed. Messages and API calls are
// per pubkey, a burst then a steady rate (GCRA). The relay owner and admins are
// exempt from the frame and message limits: their scripts administer the
// relay, and the events they relay for others (buzz sync uploading an
// appliance's history) are copies, not the authors' new messages.
//
// Any thread: the counters are RateCounters' sharded table, or, when several
// nodes serve one team, a SharedRateCounter (engine/shared_rate_counter.h) that
// all of them count in; the per-connection buckets live in the Session,
// touched only by its loop.
#pragma once

#include <optional>
#include <string_view>

#include "engine/clock.h"
#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/shared_rate_counter.h"
#include "net/http.h"
#include "server/access/auth_audit.h"
#include "server/access/grant.h"
#include "server/access/relay_membership.h"
#include "server/pipeline/frame_bucket.h"
#include "server/pipeline/rate_limits.h"
#include "server/pipeline/relay_stats.h"
#include "server/pipeline/store_writer.h"
#include "server/pipeline/verdict.h"
#include "server/team/profile_directory.h"

namespace buzz::server {

// A replay costs one more read unit per this many events it sent.
inline constexpr size_t kReadUnitEvents = 100;

class Throttle {
 public:
  // `shared`: the windows every node counts in (null: this node's own, in memory).
  Throttle(const RateLimitConfig& limits, const ProfileDirectory& profiles, const RelayMembership& membership,
           engine::EventStore& store, StoreWriter& writer, RelayStats& stats,
           engine::SharedRateCounter* shared = nullptr)
      : limits_(limits),
        profiles_(profiles),
        membership_(membership),
        store_(store),
        writer_(writer),
        stats_(stats),
        shared_(shared) {}

  // Frames of an authenticated connection (its bucket, its pubkey and grant):
  // nullopt, or the refusal's wait in seconds. admit_write: an EVENT;
  // admit_read: a REQ, COUNT or NEG-OPEN, one unit.
  std::optional<uint64_t> admit_write(FrameBucket& bucket, const engine::Pubkey& pk, const Grant& grant);
  std::optional<uint64_t> admit_read(FrameBucket& bucket, const engine::Pubkey& pk, const Grant& grant);
  // After a replay admitted by admit_read: what the events it sent cost.
  void charge_replay(FrameBucket& bucket, size_t events) const;
  // A message (counts_as_message) by its author, submitted by `submitter`: the
  // refusal, or nullopt. What an owner or admin submits for others (buzz sync,
  // a bridge under proxy:submit) copies messages already written: not counted.
  // With several nodes, `ticket` receives an allowed use's RateTicket (the
  // shared count still on its way), which the store writer asks before it
  // acknowledges the message.
  std::optional<Verdict> admit_message(const engine::Event& e, const engine::Pubkey& submitter,
                                       std::shared_ptr<engine::RateTicket>* ticket = nullptr);
  // An authenticated HTTP API call (or upload): the 429, or nullopt.
  std::optional<net::HttpResponse> admit_api_call(const engine::Pubkey& pk);
  // Counts and (debounced) audits a refusal decided elsewhere, e.g. the token-mint limit.
  void note_rate_limited(const engine::Pubkey& pk, RateLimit limit, std::string_view channel);
  // Whether a failed authentication from this remote address ("ip:port") is
  // audited: a bounded number per address per minute (server/access/auth_audit.h).
  bool audit_auth_failure(std::string_view peer) { return auth_failures_.due(peer, engine::unix_now()); }

 private:
  // The operator's assignment, else agent-standard for a declared agent, else human.
  Tier tier_of(const engine::Pubkey& pk) const;
  // One use of a per-pubkey rate, in the shared counter when there is one.
  RateCounters::Outcome acquire(const engine::Pubkey& pk, RateLimit limit, const engine::Rate& rate,
                                std::shared_ptr<engine::RateTicket>* ticket = nullptr);
  // Takes `cost` units from a human frame bucket of `burst` refilled at
  // `per_sec`: nullopt, or the refusal's wait in seconds.
  std::optional<uint64_t> take(FrameBucket& bucket, uint32_t per_sec, uint32_t burst, const engine::Pubkey& pk,
                               const Grant& grant);
  // The relay owner and admins: no frame or message limit.
  bool administers(const engine::Pubkey& pk) const;

  const RateLimitConfig& limits_;
  const ProfileDirectory& profiles_;
  const RelayMembership& membership_;
  engine::EventStore& store_;
  StoreWriter& writer_;
  RelayStats& stats_;
  engine::SharedRateCounter* shared_;
  RateCounters counters_;
  AuthFailureAudit auth_failures_;
};

}  // namespace buzz::server
