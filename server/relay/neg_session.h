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
// worker (`Relay::neg_builder_`), not the loop.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/negentropy.h"

namespace buzz::server {

// The binary bytes of a NEG message of ours that fit a WebSocket message of
// max_message_bytes: hex doubles them, and the envelope
// (["NEG-MSG","<sub_id>","…"], a 256-byte id escaped) takes under 2 KiB.
inline constexpr size_t neg_frame_bytes(size_t max_message_bytes) {
  constexpr size_t kEnvelopeBytes = 2048;
  return max_message_bytes > 2 * engine::negentropy::kMinFrameLimit + kEnvelopeBytes
             ? (max_message_bytes - kEnvelopeBytes) / 2
             : engine::negentropy::kMinFrameLimit;
}

struct NegLimits {
  // Binary bytes of each message we send: what fits the relay's own message
  // limit, whatever limit the client holds its own messages to (NIP-77 has no
  // field to state one; a client's are bounded by the message limit alone).
  size_t frame_bytes = neg_frame_bytes(131072);
  size_t max_items = 2'000'000;       // events one session may reconcile (80 MB)
  size_t sessions_per_connection = 2;
  int64_t idle_ms = 60'000;           // a session not advanced for this long is closed
};

struct NegSession {
  // The set and its reconciler, built on the NEG worker (`Relay::neg_builder_`) and
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
