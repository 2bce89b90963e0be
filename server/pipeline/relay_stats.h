// RelayStats: the counters the request paths bump (the pipeline, the HTTP API,
// media, the rate limits), as relaxed atomics any thread may read; GET /metrics
// renders them (server/ops/metrics.h). One instance, owned by the wiring.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "engine/kinds.h"
#include "server/pipeline/rate_limits.h"

namespace buzz::server {

// The `mime` labels of buzz_media_uploads_total (docs/reference/media.md §5.3).
inline constexpr std::array<std::string_view, 6> kMediaUploadLabels = {"image/jpeg", "image/png", "image/gif",
                                                                       "image/webp", "video/mp4", "other"};
// The label index of a stored MIME type.
size_t media_upload_label(std::string_view mime);

struct RelayStats {
  // EVENTs submitted by authenticated callers (WebSocket and HTTP), by their
  // place in engine::all_kinds(); the last slot counts every other kind.
  std::unique_ptr<std::atomic<uint64_t>[]> received_by_kind =
      std::make_unique<std::atomic<uint64_t>[]>(engine::all_kinds().size() + 1);
  void count_received(const engine::KindInfo* info) {
    const size_t slot = info ? size_t(info - engine::all_kinds().data()) : engine::all_kinds().size();
    received_by_kind[slot].fetch_add(1, std::memory_order_relaxed);
  }
  std::atomic<uint64_t> events_accepted{0};  // EVENTs answered OK true, duplicates included
  std::atomic<uint64_t> events_rejected{0};  // EVENTs answered OK false
  std::atomic<uint64_t> events_delivered{0};
  std::atomic<uint64_t> reqs{0};
  std::atomic<uint64_t> auth_successes{0};
  std::atomic<uint64_t> auth_failures{0};
  std::atomic<uint64_t> auth_timeouts{0};        // sessions closed without AUTH on a closed relay (SessionLimits)
  std::atomic<uint64_t> pubkey_session_caps{0};  // AUTHs refused past SessionLimits::max_per_pubkey
  std::atomic<int64_t> subscriptions_active{0};
  std::atomic<uint64_t> remote_events{0};           // other nodes' events fanned out here (--pubsub)
  std::atomic<uint64_t> remote_unknown_channel{0};  // theirs of a channel this node does not know: not delivered
  std::atomic<uint64_t> remote_lagged{0};           // theirs dropped by a full RemoteQueue (§3.2 "lagged")
  std::atomic<uint64_t> ingest_pauses{0};  // connections paused for back-pressure (StoreWriter::congested)
  std::array<std::atomic<uint64_t>, kMediaUploadLabels.size()> media_uploads{};  // by kMediaUploadLabels
  std::atomic<uint64_t> upload_budget_refusals{0};  // upload heads refused past the bytes in flight (server/media)
  std::array<std::atomic<uint64_t>, kRateLimitCount> rate_limited{};               // refusals, by RateLimit
};

}  // namespace buzz::server
