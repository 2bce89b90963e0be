// IdFilter: "was this event id added before?" answered in memory, with false
// positives but never a false negative, for ids the index writer added during
// this process's life.
//
// Why: asking the index (document_ids.h: a bucket seek in every segment, then a
// stored-field read per document of the bucket) costs tens of microseconds per
// document, and on the ingest path the answer is nearly always "no".
//
// It is not bounded by dropping old ids behind a rising created_at horizon:
// events arrive out of created_at order (a lagging connection, a skewed client
// clock), and in a 1,000,000-event ingest that sent up to half the events to
// the index, at 90 µs each (2026-12-05).
//
// A blocked Bloom filter: each id sets 8 bits inside one 64-byte block chosen by
// its hash, so a lookup touches one cache line. It grows by adding a stage twice
// the size of the last when the last is full (16 bits per id, well under 1 %
// false positives), and every stage is probed.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/hex.h"

namespace buzz::index {

class IdFilter {
 public:
  void insert(const engine::Id& id);
  bool may_contain(const engine::Id& id) const;
  void clear() { stages_.clear(); }

 private:
  using Block = std::array<uint64_t, 8>;  // 512 bits
  struct Stage {
    std::vector<Block> blocks;
    size_t capacity = 0;  // ids before the next stage starts
    size_t count = 0;
  };
  std::vector<Stage> stages_;
};

}  // namespace buzz::index
