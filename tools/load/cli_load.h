// buzz-load cli: `buzz send-message` end to end, as an agent runs it — a new
// process each time (start, auth, sign, POST, answer, exit), timed from spawn
// to reaped exit. Two auth modes: a token in BUZZ_API_TOKEN (one request), and
// a private key alone (the CLI auto-mints a token first and revokes it after:
// three requests). `buzz version` (`start_only`), timed the same way, is the
// cost of starting the binary at all; the floor is a plain C `main`
// (buzz-load-floor) in the same run, each mode's CPU p50 also given as a
// multiple of the floor's (`*_x_floor`).
#pragma once

#include <map>
#include <string>

#include "tools/load/server_process.h"

namespace buzz::load {

// `runs` runs of each mode, the modes in turn; p50/p90/p99 ms per mode.
std::map<std::string, double> run_cli_load(const ServerProcess& server, const std::string& binary, int runs);

}  // namespace buzz::load
