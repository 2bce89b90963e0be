// NegSession: one NIP-77 reconciliation a connection has open, and the limits
// every one of them is held to (docs/limits.md).
//
// The set is the (created_at, id) of every event the caller may read that
// matches the NEG-OPEN filter, materialised once: the read rules need each
// event's channel and tags, which the index keys do not carry, so walking the
// index per round would mean re-reading and re-checking every record each
// round. 40 bytes an event (a million events: 40 MB), capped by max_items and
// sessions_per_connection, and it is a snapshot: events stored meanwhile wait
// for the next session, as with a REQ's history. It is built on the NEG
// worker, not the loop (neg_builder.h).
#pragma once

#include <cstdint>
#include <memory>

#include "engine/negentropy.h"

namespace buzz::server {

struct NegLimits {
  // Binary bytes of one message either way; on the wire hex doubles it, and
  // the socket takes at most 65,536 bytes a message.
  size_t frame_bytes = 30'000;
  size_t max_items = 2'000'000;       // events one session may reconcile (80 MB)
  size_t sessions_per_connection = 2;
  int64_t idle_ms = 60'000;           // a session not advanced for this long is closed
};

struct NegSession {
  // The set and its reconciler, built on the NEG worker (neg_builder.h) and
  // then handed to the session on its loop.
  struct Ready {
    Ready(engine::negentropy::ItemSet items, size_t frame_bytes) : set(std::move(items)), reconciler(set, frame_bytes) {}
    Ready(const Ready&) = delete;
    Ready& operator=(const Ready&) = delete;

    const engine::negentropy::ItemSet set;
    engine::negentropy::Reconciler reconciler;  // refers to set
  };

  std::unique_ptr<Ready> ready;  // null while the set is being built
  uint64_t ticket = 0;           // which NEG-OPEN this is: a build finishing for a replaced one is dropped
  int64_t last_active_ms = 0;    // steady clock
};

}  // namespace buzz::server
