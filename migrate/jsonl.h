// NIP-01 events as JSON lines, one event object per line: the format strfry and
// nostr-rs-relay export and import, for moving between relays.
//
// Export writes each live stored event's JSON exactly as it was received.
// Import checks each line's id and signature and writes it through the
// store's write path (event_loader.h); it stores events only: channels and
// memberships come from the team events the relay processes live, so an
// import into a fresh data directory carries the messages, not the rooms.
#pragma once

#include <cstdint>
#include <string>

#include "engine/result.h"
#include "migrate/progress.h"

namespace buzz::migrate {

struct JsonlSummary {
  uint64_t events = 0;      // written (export) or stored (import)
  uint64_t not_stored = 0;  // import: duplicates, superseded versions, ephemeral kinds
};

// `file` "-" is standard output / standard input.
engine::Result<JsonlSummary> export_jsonl(const std::string& data_dir, const std::string& file, Progress& progress);
engine::Result<JsonlSummary> import_jsonl(const std::string& file, const std::string& data_dir, Progress& progress);

}  // namespace buzz::migrate
