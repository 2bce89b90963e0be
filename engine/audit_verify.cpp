// Audit chain reading and verification; see audit_verify.h.
#include "engine/audit_verify.h"

#include <algorithm>

#include "engine/canonical.h"

namespace buzz::engine {
namespace {

// The chain position a segment must continue from.
struct ChainPoint {
  uint64_t seq = 0;
  std::string hash{kAuditGenesisHash};
};

// Header checks against the previous segment (§8.5), or an empty string.
std::string check_anchor(const SegmentHeader& h, const ChainPoint& prev) {
  if (h.first_seq != prev.seq + 1) {
    return "segment starts at seq " + std::to_string(h.first_seq) + ", expected " + std::to_string(prev.seq + 1);
  }
  if (to_hex(h.anchor_prev_hash) != prev.hash) {
    return "segment anchor " + to_hex(h.anchor_prev_hash) + " does not match the previous hash " + prev.hash;
  }
  return {};
}

}  // namespace

std::string describe(const AuditFailure& f) {
  return f.segment + " at offset " + std::to_string(f.offset) + " (seq " + std::to_string(f.seq) + "): " + f.error;
}

SegmentScan scan_segment(std::string_view bytes, const SegmentFile& file,
                         const std::function<void(AuditEntry&&)>& on_entry) {
  SegmentScan s;
  auto stop = [&](SegmentScan::End end, size_t offset, uint64_t seq, std::string error) {
    s.end = end;
    s.failure = {file.name, offset, seq, std::move(error)};
    return s;
  };
  Result<SegmentHeader> header = decode_segment_header(bytes);
  if (!header) return stop(SegmentScan::End::kCorrupt, 0, file.first_seq, header.error());
  s.header = *header;
  if (s.header.first_seq != file.first_seq) {
    return stop(SegmentScan::End::kCorrupt, 0, file.first_seq, "header first_seq does not match the file name");
  }
  s.last_seq = s.header.first_seq - 1;
  s.last_hash = to_hex(s.header.anchor_prev_hash);
  s.good_end = kSegmentHeaderBytes;

  for (size_t at = kSegmentHeaderBytes;; at = s.good_end) {
    const Frame f = read_frame(bytes, at);
    const uint64_t next = s.last_seq + 1;
    if (f.status == FrameStatus::kEnd) break;
    if (s.sealed) return stop(SegmentScan::End::kCorrupt, at, s.last_seq, "bytes follow the trailer");
    if (f.status == FrameStatus::kBadType) return stop(SegmentScan::End::kCorrupt, at, next, frame_status_text(f.status));
    if (f.status != FrameStatus::kOk) {
      if (size_t later = find_valid_frame(bytes, at + 1); later != SIZE_MAX) {
        return stop(SegmentScan::End::kCorrupt, at, next,
                    std::string(frame_status_text(f.status)) + ", yet a valid frame follows at offset " +
                        std::to_string(later));
      }
      return stop(f.status == FrameStatus::kIncomplete ? SegmentScan::End::kIncomplete : SegmentScan::End::kTorn, at,
                  next, frame_status_text(f.status));
    }
    if (f.type == FrameType::kEntry) {
      Result<AuditEntry> e = decode_audit_payload(f.payload);
      if (!e) return stop(SegmentScan::End::kCorrupt, at, next, e.error());
      if (e->seq != next) {
        return stop(SegmentScan::End::kCorrupt, at, next,
                    "seq gap: expected seq " + std::to_string(next) + ", got " + std::to_string(e->seq));
      }
      if (e->prev_hash != s.last_hash) {
        return stop(SegmentScan::End::kCorrupt, at, next,
                    "hash chain integrity violation at seq " + std::to_string(next) + ": expected prev_hash " +
                        s.last_hash + ", got " + e->prev_hash);
      }
      if (std::string computed = audit_hash(*e); computed != e->hash) {
        return stop(SegmentScan::End::kCorrupt, at, next,
                    "hash mismatch at seq " + std::to_string(next) + ": stored " + e->hash + ", computed " + computed);
      }
      s.last_seq = next;
      s.last_hash = e->hash;
      ++s.entries;
      if (on_entry) on_entry(std::move(*e));
    } else {
      Result<SegmentTrailer> t = decode_trailer_payload(f.payload);
      if (!t) return stop(SegmentScan::End::kCorrupt, at, s.last_seq, t.error());
      Id digest;
      sha256(bytes.data(), at, digest.data());
      std::string mismatch = t->last_seq != s.last_seq         ? "last_seq"
                             : t->record_count != s.entries     ? "record_count"
                             : to_hex(t->last_hash) != s.last_hash ? "last_hash"
                             : t->file_digest != digest         ? "file_digest"
                                                                : "";
      if (!mismatch.empty()) {
        return stop(SegmentScan::End::kCorrupt, at, s.last_seq, "trailer " + mismatch + " does not match the segment");
      }
      s.sealed = true;
    }
    s.good_end = f.end;
  }
  return s;
}

VerifyReport verify_audit(const std::string& dir, uint64_t from_seq, uint64_t to_seq) {
  VerifyReport r;
  r.last_hash = kAuditGenesisHash;
  auto fail = [&](AuditFailure failure) {
    r.ok = false;
    r.failure = std::move(failure);
    return r;
  };
  Result<std::vector<SegmentFile>> segments = list_segments(dir);
  if (!segments) return fail({"", 0, 0, segments.error()});
  const std::vector<SegmentFile>& segs = *segments;

  // Start at the segment that holds from_seq, anchored on its predecessor's trailer.
  size_t i = 0;
  while (i + 1 < segs.size() && segs[i + 1].first_seq <= from_seq) ++i;
  ChainPoint prev;
  if (i > 0) {
    Result<SegmentTrailer> t = read_segment_trailer(dir + "/" + segs[i - 1].name);
    if (!t) return fail({segs[i - 1].name, 0, segs[i].first_seq - 1, t.error()});
    prev = {t->last_seq, to_hex(t->last_hash)};
  }

  auto count = [&](AuditEntry&& e) {
    if (e.seq < from_seq || e.seq > to_seq) return;
    if (r.entries++ == 0) r.first_seq = e.seq;
    r.last_seq = e.seq;
    r.last_hash = std::move(e.hash);
  };
  for (; i < segs.size() && segs[i].first_seq <= to_seq; ++i) {
    const bool newest = i + 1 == segs.size();
    Result<std::string> bytes = read_whole_file(dir + "/" + segs[i].name);
    if (!bytes) return fail({segs[i].name, 0, segs[i].first_seq, bytes.error()});
    SegmentScan scan = scan_segment(*bytes, segs[i], count);
    // Failures are reported in file order, so the header's anchor comes first.
    const bool header_read = scan.end == SegmentScan::End::kClean || scan.failure.offset > 0;
    if (std::string why = header_read ? check_anchor(scan.header, prev) : ""; !why.empty()) {
      return fail({segs[i].name, 0, segs[i].first_seq, why});
    }
    const bool write_in_progress = newest && scan.end == SegmentScan::End::kIncomplete;
    if (scan.end != SegmentScan::End::kClean && !write_in_progress) return fail(scan.failure);
    if (!scan.sealed && !newest) {
      return fail({segs[i].name, bytes->size(), scan.last_seq, "segment is not sealed but is not the newest"});
    }
    prev = {scan.last_seq, scan.last_hash};
  }
  return r;
}

Result<std::vector<AuditEntry>> read_audit_tail(const std::string& dir, size_t n) {
  Result<std::vector<SegmentFile>> segs = list_segments(dir);
  if (!segs) return Error{segs.error()};
  std::vector<AuditEntry> tail;  // oldest first; older segments are prepended
  for (size_t i = segs->size(); i-- > 0 && tail.size() < n;) {
    const SegmentFile& file = (*segs)[i];
    Result<std::string> bytes = read_whole_file(dir + "/" + file.name);
    if (!bytes) return Error{bytes.error()};
    std::vector<AuditEntry> entries;
    SegmentScan scan = scan_segment(*bytes, file, [&](AuditEntry&& e) { entries.push_back(std::move(e)); });
    const bool write_in_progress = i + 1 == segs->size() && scan.end == SegmentScan::End::kIncomplete;
    if (scan.end != SegmentScan::End::kClean && !write_in_progress) return Error{describe(scan.failure)};
    const size_t take = std::min(n - tail.size(), entries.size());
    tail.insert(tail.begin(), std::make_move_iterator(entries.end() - take), std::make_move_iterator(entries.end()));
  }
  return tail;
}

}  // namespace buzz::engine
