// `buzz-load idle`: the relay's memory per idle authenticated connection,
// --connections of them on one key. The figure is the slope over the second
// half of the connections: the loops' provided receive buffers (a fixed pool,
// docs/limits.md) become resident as the first connections' handshakes cycle
// through them, which is no connection's own cost; the all-in average is
// printed beside it.
#pragma once

#include "tools/load/scenario.h"

namespace buzz::load {

// Reports the figures; throws std::runtime_error if a connection is refused.
void run_idle(const Options& o);

}  // namespace buzz::load
