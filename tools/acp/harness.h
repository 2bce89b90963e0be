// Harness: the event loop of `buzz acp` (docs/reference/agents-and-cli.md §A.3–A.5, §A.8).
// One thread owns every piece of state: the relay socket, the subscriptions,
// the per-channel queues, the agent slots' bookkeeping and the timers. Other
// threads (agent slots, REST workers, the reconnect attempt) hand their
// results back through the inbox, a queue of closures the loop runs, so the
// state is never shared. Nothing is written to disk; a restart rebuilds all.
#pragma once

#include <memory>

#include "tools/acp/acp_config.h"

namespace buzz::acp {

// Runs until !shutdown, SIGINT/SIGTERM, or until no agent can run. Returns
// the process exit code.
int run_harness(Config config);

}  // namespace buzz::acp
