// Startup recovery of an audit directory (docs/reference/audit.md §8.6), run by AuditLog::open
// while it holds <dir>/LOCK, before the writer starts.
//
// It deletes leftover *.bza.tmp files, creates the next segment when the newest
// one is sealed (or has no valid header and nothing valid in it), and cuts a torn
// tail off the newest segment after copying it to quarantine/. It never removes
// bytes that pass their CRC: a valid frame failing a chain check, or valid frames
// after invalid bytes, make it fail closed with the segment, offset and seq.
// Only the newest segment and its predecessor's trailer are read.
#pragma once

#include <cstdint>
#include <string>

#include "engine/audit_segment.h"
#include "engine/result.h"

namespace buzz::engine {

// What recovery found and did, for the server's start-up log.
struct RecoveryReport {
  uint64_t head_seq = 0;
  std::string head_hash;         // hex; genesis for an empty chain
  std::string active_segment;    // file name that appends go to
  uint64_t truncated_bytes = 0;  // torn tail cut off the active segment
  std::string quarantine_path;   // where those bytes were copied; empty if none
  size_t removed_tmp_files = 0;
};

// The segment the writer appends to: unsealed, ending in a whole valid frame.
struct ActiveSegment {
  std::string path;
  SegmentHeader header;
  uint64_t size = 0;
  uint64_t entries = 0;
};

struct RecoveredAudit {
  RecoveryReport report;
  ActiveSegment active;
};

// The directory must exist. now_us stamps new segment headers and names the
// quarantine file.
Result<RecoveredAudit> recover_audit_dir(const std::string& dir, int64_t now_us);

}  // namespace buzz::engine
