// The in-memory filter of added ids; see id_filter.h.
#include "index/id_filter.h"

#include <xxhash.h>

#include <algorithm>

namespace buzz::index {
namespace {

constexpr size_t kBitsPerId = 16;
constexpr size_t kBlocks = IdFilter::kGenerationIds * kBitsPerId / 512;
constexpr int kProbes = 8;

// The block, and 8 bit positions inside it (9 bits each), from one 128-bit hash.
struct Probe {
  uint64_t block;
  uint64_t bits;
};

Probe probe(const engine::Id& id) {
  XXH128_hash_t h = XXH3_128bits(id.data(), id.size());
  return {h.low64 % kBlocks, h.high64};
}

template <class Visit>
void for_each_bit(uint64_t bits, Visit&& visit) {
  for (int i = 0; i < kProbes; ++i, bits >>= 9) visit(size_t(bits & 511));
}

}  // namespace

IdFilter::IdFilter() { reset(0); }

void IdFilter::reset(uint64_t horizon) {
  horizon_ = horizon;
  older_ = {};
  newer_ = {std::vector<Block>(kBlocks), 0, 0};
}

void IdFilter::insert(const engine::Id& id, uint64_t created_at) {
  if (newer_.count == kGenerationIds) {
    horizon_ = std::max(horizon_, older_.newest);  // what the older generation held is now known only by its age
    older_ = std::move(newer_);
    newer_ = {std::vector<Block>(kBlocks), 0, 0};
  }
  const Probe p = probe(id);
  Block& block = newer_.blocks[p.block];
  for_each_bit(p.bits, [&](size_t bit) { block[bit / 64] |= uint64_t(1) << (bit % 64); });
  ++newer_.count;
  newer_.newest = std::max(newer_.newest, created_at);
}

bool IdFilter::contains(const Generation& g, const engine::Id& id) {
  if (g.count == 0) return false;
  const Probe p = probe(id);
  const Block& block = g.blocks[p.block];
  bool all = true;
  for_each_bit(p.bits, [&](size_t bit) { all = all && (block[bit / 64] >> (bit % 64) & 1); });
  return all;
}

bool IdFilter::may_hold(const engine::Id& id, uint64_t created_at) const {
  return created_at <= horizon_ || contains(newer_, id) || contains(older_, id);
}

}  // namespace buzz::index
