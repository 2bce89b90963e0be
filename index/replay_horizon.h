// ReplayHorizon: where a subscription's history replay ends and its live
// delivery begins, so that no event reaches one subscription twice.
//
// A subscription is registered before its replay (nothing published meanwhile
// is missed), so an event the store writer committed just before the replay
// can be in it and still be on its way to this loop as a live event: the
// writer hands each loop its batches after the commit, and an OK on one loop
// may be answered by a REQ on another before the second loop's copy arrives.
//
// The writer numbers its write batches. Batches written before the replay
// began are wholly visible to it, so their live copies are dropped. A batch
// being written while the replay ran may be in it in part: until that batch
// has been fanned out, the replay's own ids decide. Events that no write batch
// of this node carries (ephemeral kinds, other nodes') pass as batch 0.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/hex.h"

namespace buzz::index {

class ReplayHorizon {
 public:
  // `written_before`: batches written when the replay began. `writing_after`:
  // the newest batch begun when it ended. `sent`: the ids it sent.
  void set(uint64_t written_before, uint64_t writing_after, std::vector<engine::Id> sent);
  // Whether an event of write batch `batch` was already sent by the replay.
  bool replayed(uint64_t batch, const engine::Id& id) const;
  // Whether replay ids are still held, and until which batch.
  bool overlapping() const { return overlap_ != nullptr; }
  uint64_t overlap_until() const { return overlap_ ? overlap_->until : 0; }
  // Batch `batch` has been fanned out: ids of batches up to it are let go.
  void settle(uint64_t batch) {
    if (overlap_ && batch >= overlap_->until) overlap_.reset();
  }

 private:
  struct Overlap {
    uint64_t until;
    std::vector<engine::Id> ids;  // sorted
  };
  uint64_t through_ = 0;
  std::unique_ptr<Overlap> overlap_;  // most replays overlap no write: 8 bytes
};

}  // namespace buzz::index
