// `buzz sync`: brings two relays to the same set of events over a filter,
// moving only what one side lacks. NIP-77 finds the difference against the
// source (`from`); the events missing on the destination (`to`) are fetched in
// batches and published to it through its normal ingest (signatures verified,
// team rules applied), and, when asked, the other way round.
//
// Resumable by construction: every run starts with a reconciliation, so a run
// cut short is finished by the next one, which moves only what is still missing.
#pragma once

#include <string>

#include "tools/sync/relay_link.h"

namespace buzz::sync {

enum class Direction { kDown, kUp, kBoth };  // down: from → to; up: to → from

struct SyncOptions {
  std::string from;      // ws:// URL of the source (the central relay)
  std::string to;        // ws:// URL of the destination, or empty with data_dir
  std::string data_dir;  // run `buzz serve` on this directory on loopback as the destination
  std::string filter = "{}";
  Direction direction = Direction::kDown;
  Identity from_identity, to_identity;
  bool watch = false;    // after catching up, keep copying new events from `from`
  bool json = false;     // the report as one JSON object on stdout
  bool progress = false; // a progress line on stderr (a TTY)
};

// Runs the sync; returns the process exit code (0 ok, 1 failure).
int run_sync(const SyncOptions& options);

}  // namespace buzz::sync
