// The in-memory filter of added ids; see id_filter.h.
#include "index/id_filter.h"

#include <xxhash.h>

namespace buzz::index {
namespace {

constexpr size_t kFirstStageIds = size_t(1) << 16;
constexpr size_t kBitsPerId = 16;
constexpr int kProbes = 8;

// The block, and 8 bit positions inside it (9 bits each), from one 128-bit hash.
struct Probe {
  uint64_t block;
  uint64_t bits;
};

Probe probe(const engine::Id& id) {
  XXH128_hash_t h = XXH3_128bits(id.data(), id.size());
  return {h.low64, h.high64};
}

template <class Visit>
void for_each_bit(uint64_t bits, Visit&& visit) {
  for (int i = 0; i < kProbes; ++i, bits >>= 9) visit(size_t(bits & 511));
}

}  // namespace

void IdFilter::insert(const engine::Id& id) {
  if (stages_.empty() || stages_.back().count == stages_.back().capacity) {
    const size_t capacity = stages_.empty() ? kFirstStageIds : stages_.back().capacity * 2;
    stages_.push_back({std::vector<Block>(capacity * kBitsPerId / 512), capacity, 0});
  }
  Stage& stage = stages_.back();
  const Probe p = probe(id);
  Block& block = stage.blocks[p.block % stage.blocks.size()];
  for_each_bit(p.bits, [&](size_t bit) { block[bit / 64] |= uint64_t(1) << (bit % 64); });
  ++stage.count;
}

bool IdFilter::may_contain(const engine::Id& id) const {
  const Probe p = probe(id);
  for (const Stage& stage : stages_) {
    const Block& block = stage.blocks[p.block % stage.blocks.size()];
    bool all = true;
    for_each_bit(p.bits, [&](size_t bit) { all = all && (block[bit / 64] >> (bit % 64) & 1); });
    if (all) return true;
  }
  return false;
}

}  // namespace buzz::index
