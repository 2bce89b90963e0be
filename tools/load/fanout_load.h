// `buzz-load fanout`: --subscribers authenticated connections hold one live
// REQ each while one publisher posts --rate events a second for --seconds;
// every delivery is timed from its send to its arrival. The relay's CPU per
// delivery is reported beside one loopback send over as many connections
// (send_floor.h), its latencies beside the fan-out floor's (fanout_floor.h).
// With --pubsub, two nodes share that Redis: the subscribers on one, the
// publisher on the other, so every delivery crosses Redis. With --in-channel
// the events are kind-9 messages of one open channel, whose deliveries the
// relay records for receipts (server/relay/delivery_recorder.h).
#pragma once

#include "tools/load/scenario.h"

namespace buzz::load {

// Reports the figures; throws std::runtime_error if a subscription fails or a
// delivery was lost (to the relay's subscribers or the floor's).
void run_fanout(const Options& o);

}  // namespace buzz::load
