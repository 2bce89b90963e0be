// `buzz-load backup`: the OK latency of a steady ingest while `buzz backup`
// copies the relay's data directory, beside the same ingest without it
// (docs/performance.md, "Online backup"). The store is first filled with
// --events events so the backup has something to copy; then --connections
// clients publish --rate events a second for --seconds, once alone and once
// with `buzz backup --to …` started a second in (longer, if the backup is).
#pragma once

#include "tools/load/scenario.h"

namespace buzz::load {

// Reports the figures; throws std::runtime_error if the relay or the backup fails.
void run_backup_load(const Options& o);

}  // namespace buzz::load
