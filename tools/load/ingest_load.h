// `buzz-load ingest`: --connections authenticated clients send --events signed
// kind-1 notes, each keeping --in-flight of them unanswered; the figure is the
// relay's CPU per stored event (the search index caught up), then the same
// frames, window and client against the ingest floor (ingest_floor.h) in a
// child process, both as multiples of one bare verify measured before and after.
#pragma once

#include "tools/load/scenario.h"

namespace buzz::load {

// Reports the figures; throws std::runtime_error if a connection is closed or
// the floor does not store every event.
void run_ingest(const Options& o);

}  // namespace buzz::load
