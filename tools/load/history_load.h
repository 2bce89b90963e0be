// `buzz-load history`: --events kind-1 and kind-7 events from 100 authors over
// 200 topics, written straight into a fresh store (with BUZZ_STORE=postgres://…
// exported there first), then served by the relay: --queries REQs of each
// shape (by kind, by author, by kind and tag over three topics: one of kind 1
// alone, one spread over ten kinds, one whose kind-1 events are all old;
// limit 500) timed to their EOSE, then
// --connections clients asking mixed queries for --seconds (throughput and
// the relay's CPU per query).
#pragma once

#include "tools/load/scenario.h"

namespace buzz::load {

// Reports the figures; throws std::runtime_error if the preload or a query fails.
void run_history(const Options& o);

}  // namespace buzz::load
