// `buzz-load messages`: REST reads. One open channel holding --events messages
// (every tenth with a reply, every fifth with a reaction), then --connections
// keep-alive clients on two threads reading its newest page
// (GET /api/channels/{id}/messages, 50 messages with summaries and reactions)
// with a bearer token for --seconds: requests a second and the relay's CPU per request.
#pragma once

#include "tools/load/scenario.h"

namespace buzz::load {

// Reports the figures; throws std::runtime_error if the setup or the first page fails.
void run_messages(const Options& o);

}  // namespace buzz::load
