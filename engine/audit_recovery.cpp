// Startup recovery of an audit directory; see audit_recovery.h.
#include "engine/audit_recovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/audit_entry.h"
#include "engine/audit_verify.h"

namespace buzz::engine {
namespace {

Error fail_closed(const AuditFailure& f) {
  return Error{"audit log is damaged, refusing to append: " + describe(f) + " (run `buzz audit verify`)"};
}

// §8.6 step 1: a crash during rotation leaves a *.bza.tmp that was never renamed.
Result<size_t> remove_temporaries(const std::string& dir) {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = item.path().filename().string();
    if (name.size() > 8 && name.substr(name.size() - 8) == ".bza.tmp" && std::filesystem::remove(item.path(), ec)) {
      ++removed;
    }
  }
  if (ec) return Error{"cannot clean " + dir + ": " + ec.message()};
  if (removed > 0) {
    if (Status s = fsync_dir(dir); !s) return Error{s.error()};
  }
  return removed;
}

// Copies bytes [good_end, EOF) to quarantine/<segment>.<unix seconds>.tail,
// then truncates the segment to good_end, fsyncing both files and directories.
Result<std::string> quarantine_tail(const std::string& dir, const SegmentFile& file, std::string_view bytes,
                                    size_t good_end, int64_t now_us) {
  const std::string qdir = dir + "/quarantine";
  const std::string qpath = qdir + "/" + file.name + "." + std::to_string(now_us / 1000000) + ".tail";
  const std::string path = dir + "/" + file.name;
  std::error_code ec;
  std::filesystem::create_directories(qdir, ec);
  if (ec) return Error{"cannot create " + qdir + ": " + ec.message()};
  int fd = ::open(qpath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"cannot create " + qpath + ": " + std::strerror(errno)};
  Status s = write_at(fd, bytes.substr(good_end), 0);
  if (s && ::fsync(fd) != 0) s = Error{"cannot fsync " + qpath + ": " + std::strerror(errno)};
  ::close(fd);
  if (s) s = fsync_dir(qdir);
  if (s && ::truncate(path.c_str(), off_t(good_end)) != 0) s = Error{"cannot truncate " + path + ": " + std::strerror(errno)};
  if (s) {
    fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) s = Error{"cannot fsync " + path + ": " + std::strerror(errno)};
    if (fd >= 0) ::close(fd);
  }
  if (s) s = fsync_dir(dir);
  if (!s) return Error{s.error()};
  return qpath;
}

// Makes a new, empty active segment; the chain head is where `header` anchors.
Result<RecoveredAudit> start_segment(const std::string& dir, const SegmentHeader& header, RecoveredAudit out) {
  Result<std::string> path = create_segment(dir, header);
  if (!path) return Error{path.error()};
  out.active = {*path, header, kSegmentHeaderBytes, 0};
  out.report.active_segment = segment_file_name(header.first_seq);
  out.report.head_seq = header.first_seq - 1;
  out.report.head_hash = to_hex(header.anchor_prev_hash);
  return out;
}

}  // namespace

Result<RecoveredAudit> recover_audit_dir(const std::string& dir, int64_t now_us) {
  RecoveredAudit out;
  Result<size_t> removed = remove_temporaries(dir);
  if (!removed) return Error{removed.error()};
  out.report.removed_tmp_files = *removed;

  Result<std::vector<SegmentFile>> segs = list_segments(dir);
  if (!segs) return Error{segs.error()};
  // Where the newest segment must start: after its predecessor's trailer, or at genesis.
  SegmentHeader expected{1, {}, now_us};
  if (segs->empty()) return start_segment(dir, expected, std::move(out));
  const SegmentFile& last = segs->back();
  if (segs->size() > 1) {
    const SegmentFile& prev = (*segs)[segs->size() - 2];
    Result<SegmentTrailer> t = read_segment_trailer(dir + "/" + prev.name);
    if (!t) return fail_closed({prev.name, 0, last.first_seq - 1, t.error()});
    expected.first_seq = t->last_seq + 1;
    expected.anchor_prev_hash = t->last_hash;
  }
  if (last.first_seq != expected.first_seq) {
    return fail_closed({last.name, 0, last.first_seq,
                        "segment does not continue the chain, which ends at seq " +
                            std::to_string(expected.first_seq - 1)});
  }

  const std::string path = dir + "/" + last.name;
  Result<std::string> bytes = read_whole_file(path);
  if (!bytes) return Error{bytes.error()};
  // §8.6 step 3: a header lost in a crash, with nothing valid after it, is rewritten.
  if (!decode_segment_header(*bytes) && find_valid_frame(*bytes, 0) == SIZE_MAX) {
    return start_segment(dir, expected, std::move(out));
  }
  SegmentScan scan = scan_segment(*bytes, last);
  if (scan.end == SegmentScan::End::kCorrupt) return fail_closed(scan.failure);
  if (scan.header.anchor_prev_hash != expected.anchor_prev_hash) {
    return fail_closed({last.name, 0, last.first_seq, "segment anchor does not match the previous segment's last hash"});
  }
  if (scan.end != SegmentScan::End::kClean) {  // §8.6 step 4: a torn tail
    Result<std::string> qpath = quarantine_tail(dir, last, *bytes, scan.good_end, now_us);
    if (!qpath) return Error{qpath.error()};
    out.report.truncated_bytes = bytes->size() - scan.good_end;
    out.report.quarantine_path = *qpath;
  }
  if (scan.sealed) {  // §8.6 step 2: the crash came between sealing and the next segment
    ::chmod(path.c_str(), 0444);
    SegmentHeader next{scan.last_seq + 1, {}, now_us};
    from_hex(scan.last_hash, &next.anchor_prev_hash);
    return start_segment(dir, next, std::move(out));
  }
  out.active = {path, scan.header, scan.good_end, scan.entries};
  out.report.active_segment = last.name;
  out.report.head_seq = scan.last_seq;
  out.report.head_hash = scan.last_hash;
  return out;
}

}  // namespace buzz::engine
