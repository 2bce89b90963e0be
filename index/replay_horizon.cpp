#include "index/replay_horizon.h"

#include <algorithm>

namespace buzz::index {

void ReplayHorizon::set(uint64_t written_before, uint64_t writing_after, std::vector<engine::Id> sent) {
  through_ = written_before;
  overlap_.reset();
  if (writing_after <= written_before) return;
  std::sort(sent.begin(), sent.end());
  overlap_ = std::make_unique<Overlap>(Overlap{writing_after, std::move(sent)});
}

bool ReplayHorizon::replayed(uint64_t batch, const engine::Id& id) const {
  if (batch == 0) return false;
  if (batch <= through_) return true;
  return overlap_ && batch <= overlap_->until && std::binary_search(overlap_->ids.begin(), overlap_->ids.end(), id);
}

}  // namespace buzz::index
