// `buzz-load channels`: team traffic. --channels private channels, --members
// members each in --per-member of them and subscribed to each with its own
// REQ (as clients do), and messages posted at --rate a second over all the
// channels by eight publishers for --seconds; every delivery is timed, and the
// relay's CPU is reported per delivery and per message.
#pragma once

#include "tools/load/scenario.h"

namespace buzz::load {

// Reports the figures; throws std::runtime_error if the setup or a subscription fails.
void run_channels(const Options& o);

}  // namespace buzz::load
