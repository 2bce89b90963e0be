// Throttle: the per-tier rate limits of docs/reference/protocol.md §14 applied to callers —
// WebSocket frames, messages and HTTP API calls. Each check counts one use and
// answers whether it may proceed; a refusal is counted (buzz_rate_limited_total)
// and audited at most once per (pubkey, limit) per minute.
//
// Frames are a token bucket per connection (a burst, then the per-second rate),
// so a client that opens its subscriptions on connect is not refused; messages
// and API calls are fixed windows per pubkey. The relay owner and admins are
// exempt from the frame and message limits: their scripts administer the relay,
// and the events they relay for others (buzz sync uploading an appliance's
// history) are copies, not the authors' new messages.
//
// Any thread: the counters are RateCounters' sharded table, or, when several
// nodes serve one team, a SharedRateCounter (engine/shared_rate_counter.h) that
// all of them count in; the per-connection frame count lives in the Session,
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
#include "server/pipeline/rate_limits.h"
#include "server/pipeline/relay_stats.h"
#include "server/pipeline/store_writer.h"
#include "server/pipeline/verdict.h"
#include "server/team/profile_directory.h"

namespace buzz::server {

// The human frame limit's token bucket of one connection: frames it may still
// send, as of `at_ms` (steady clock; -1 = full, never used). Its session holds
// it and only the connection's loop touches it.
struct FrameBucket {
  float tokens = 0;
  int64_t at_ms = -1;
};

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

  // An EVENT, REQ or COUNT frame of an authenticated connection (its bucket, its
  // pubkey and grant): false past the human frame limit.
  bool admit_frame(FrameBucket& bucket, const engine::Pubkey& pk, const Grant& grant);
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
  // One use of a per-minute window, in the shared counter when there is one.
  RateCounters::Outcome acquire_minute(const engine::Pubkey& pk, RateLimit limit, uint32_t max,
                                       std::shared_ptr<engine::RateTicket>* ticket = nullptr);
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
