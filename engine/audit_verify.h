// Reading and verifying the audit chain from its segment files (docs/reference/audit.md §7,
// §8.5): one segment's frames (scan_segment, shared with startup recovery), the
// whole walk (verify_audit) and the newest entries (read_audit_tail).
//
// Read-only and lock-free: safe while the server appends. A last frame that runs
// past the end of the newest segment is taken for a write in progress and is not
// an error here; recovery (audit_recovery.h) cuts it off if the writer crashed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/audit_entry.h"
#include "engine/audit_segment.h"

namespace buzz::engine {

// Where a walk stopped and why.
struct AuditFailure {
  std::string segment;  // file name
  uint64_t offset = 0;  // byte offset in that file
  uint64_t seq = 0;     // the entry being checked (or expected next)
  std::string error;
};

// "<segment> at offset <offset> (seq <seq>): <error>"
std::string describe(const AuditFailure& failure);

// Everything one segment's frames say, checked against its own header: seq
// continuity, prev links, recomputed hashes, CRCs, and the trailer (last frame;
// last_seq, record_count, last_hash, file digest). The caller checks the header
// against the previous segment.
struct SegmentScan {
  enum class End {
    kClean,       // every byte after the header is a valid frame
    kIncomplete,  // the last frame runs past the end and nothing valid follows it
    kTorn,        // invalid frame bytes (bad length or CRC) and nothing valid after them
    kCorrupt,     // a bad header, a valid-CRC frame failing a check, or valid frames after invalid bytes
  };
  End end = End::kClean;
  SegmentHeader header;
  uint64_t entries = 0;
  uint64_t last_seq = 0;  // header.first_seq - 1 when the segment has no entries
  std::string last_hash;  // hex; the header anchor when the segment has no entries
  bool sealed = false;
  size_t good_end = 0;    // offset just after the last valid frame
  AuditFailure failure;   // set unless kClean
};

// on_entry sees each entry after it passed its checks, in order.
SegmentScan scan_segment(std::string_view bytes, const SegmentFile& file,
                         const std::function<void(AuditEntry&&)>& on_entry = {});

struct VerifyReport {
  bool ok = true;
  uint64_t entries = 0;  // entries verified with from_seq <= seq <= to_seq
  uint64_t first_seq = 0;
  uint64_t last_seq = 0;
  std::string last_hash;  // of last_seq; genesis when no entry was in range
  AuditFailure failure;   // set when !ok
};

// Walks every segment that holds a seq in [from_seq, to_seq], whole, in order.
// The first of them is anchored on the previous segment's trailer (or genesis).
// An empty or missing directory verifies as 0 entries.
VerifyReport verify_audit(const std::string& audit_dir, uint64_t from_seq = 1, uint64_t to_seq = UINT64_MAX);

// The last n entries, oldest first; reads only the newest segments it needs.
Result<std::vector<AuditEntry>> read_audit_tail(const std::string& audit_dir, size_t n);

}  // namespace buzz::engine
