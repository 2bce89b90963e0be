// IdFilter: "was this event id added before?" answered in memory, with false
// positives but never a false negative, for ids the index writer added during
// this process's life.
//
// Why: refusing a repeated id by a term seek in every CLucene segment costs tens
// of microseconds per document (each seek scans up to 128 64-character terms),
// and on the ingest path the answer is nearly always "no".
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
