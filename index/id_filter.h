// IdFilter: "may this event's document be in the index already?" answered in
// memory, with false positives but never a false negative.
//
// Why: asking the index (document_ids.h: a bucket seek in every segment, then a
// stored-field read per document of the bucket) costs tens of microseconds per
// document, and on the ingest path the answer is nearly always "no".
//
// What it knows: any document with created_at at or below the horizon may be
// indexed (those from before the index was opened, and those the filter has let
// go of); one added since with a newer created_at is in one of two generations
// of a blocked Bloom filter. Each id sets 8 bits inside one 64-byte block chosen
// by its hash, so a probe touches one cache line per generation; 16 bits per id
// keep false positives under 1 %. When the newer generation is full the older is
// let go, and the horizon rises to its newest created_at: the filter stays at two
// generations (256 KiB) however long the process runs, and only an event older
// than the last ~65,000 added is checked by its term instead.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/hex.h"

namespace buzz::index {

class IdFilter {
 public:
  IdFilter();
  // Forgets every id: documents up to `horizon` may be indexed, none newer.
  void reset(uint64_t horizon);
  void insert(const engine::Id& id, uint64_t created_at);
  // False only if no document of this event is indexed.
  bool may_hold(const engine::Id& id, uint64_t created_at) const;
  uint64_t horizon() const { return horizon_; }

  static constexpr size_t kGenerationIds = size_t(1) << 16;

 private:
  using Block = std::array<uint64_t, 8>;  // 512 bits
  struct Generation {
    std::vector<Block> blocks;
    size_t count = 0;
    uint64_t newest = 0;  // the largest created_at inserted
  };
  static bool contains(const Generation& g, const engine::Id& id);

  uint64_t horizon_ = 0;
  Generation older_, newer_;
};

}  // namespace buzz::index
