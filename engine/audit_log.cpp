// The audit log writer; see audit_log.h.
#include "engine/audit_log.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "engine/audit_segment.h"
#include "engine/audit_verify.h"
#include "engine/canonical.h"
#include "engine/file_digest.h"

namespace buzz::engine {
namespace {

int64_t now_micros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t utc_day(int64_t unix_micros) {
  using namespace std::chrono;
  return floor<days>(sys_time<microseconds>(microseconds(unix_micros))).time_since_epoch().count();
}

Error errno_error(const std::string& what) { return Error{what + ": " + std::strerror(errno)}; }

// How many records at the front of `pending` are the chain's last entries, in order.
size_t matched_prefix(const std::vector<AuditEntry>& tail, const std::vector<AuditLog::TicketedRecord>& pending) {
  for (size_t k = std::min(tail.size(), pending.size()); k > 0; --k) {
    auto same = [](const AuditLog::TicketedRecord& p, const AuditEntry& e) {
      return p.second == static_cast<const AuditRecord&>(e);
    };
    if (std::equal(pending.begin(), pending.begin() + ptrdiff_t(k), tail.end() - ptrdiff_t(k), same)) return k;
  }
  return 0;
}

}  // namespace

Result<std::unique_ptr<AuditLog>> AuditLog::open(const std::string& dir, const AuditOptions& opts) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"cannot create audit directory " + dir + ": " + ec.message()};
  const std::string lock_path = dir + "/LOCK";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0) return errno_error("cannot open " + lock_path);
  if (::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    Error why = errno == EWOULDBLOCK ? Error{"audit log " + dir + " is in use by another writer (" + lock_path + " is locked)"}
                                     : errno_error("cannot lock " + lock_path);
    ::close(lock_fd);
    return why;
  }
  Result<RecoveredAudit> recovered = recover_audit_dir(dir, now_micros());
  const int segment_fd = recovered ? ::open(recovered->active.path.c_str(), O_WRONLY | O_CLOEXEC) : -1;
  if (!recovered || segment_fd < 0) {
    Error why = recovered ? errno_error("cannot open " + recovered->active.path) : Error{recovered.error()};
    ::close(lock_fd);
    return why;
  }
  return std::unique_ptr<AuditLog>(new AuditLog(dir, opts, lock_fd, segment_fd, std::move(*recovered)));
}

AuditLog::AuditLog(std::string dir, AuditOptions opts, int lock_fd, int segment_fd, RecoveredAudit recovered)
    : AuditWriter(std::move(opts), AuditHead{recovered.report.head_seq, recovered.report.head_hash}),
      dir_(std::move(dir)),
      lock_fd_(lock_fd),
      recovery_(std::move(recovered.report)),
      active_(std::move(recovered.active)),
      segment_fd_(segment_fd),
      written_{recovery_.head_seq, recovery_.head_hash} {
  metrics_.tail_truncated = recovery_.truncated_bytes > 0 ? 1 : 0;
  start();
}

AuditLog::~AuditLog() {
  stop();  // the writer uses the segment
  if (segment_fd_ >= 0) ::close(segment_fd_);
  ::close(lock_fd_);
}

void AuditLog::replay_pending(std::vector<TicketedRecord> pending) {
  if (pending.empty()) return;
  const uint64_t last_ticket = pending.back().first;
  // Compare in the stored form (canonical meta). A record that fails here cannot
  // be in the chain; the writer refuses it again and still reports its ticket.
  for (TicketedRecord& p : pending) static_cast<void>(normalize_audit_record(p.second));
  Result<std::vector<AuditEntry>> tail = read_audit_tail(dir_, pending.size());
  if (!tail) return fail(Error{"cannot read the audit chain to replay pending records: " + tail.error()});
  pending.erase(pending.begin(), pending.begin() + ptrdiff_t(matched_prefix(*tail, pending)));
  if (pending.empty()) {
    if (opts_.on_durable) opts_.on_durable(last_ticket);
    return;
  }
  requeue(std::move(pending));
}

Status AuditLog::write_group(std::vector<TicketedRecord>& group) {
  const int64_t now = now_micros();
  const bool seal_due = active_.entries > 0 && (active_.size >= opts_.segment_bytes ||
                                                utc_day(now) != utc_day(active_.header.created_at_us));
  if (seal_due) {
    if (Status s = seal_and_rotate(now); !s) return s;
  }
  std::string frames;
  AuditHead head = written_;
  uint64_t appended = 0;
  for (auto& [ticket, record] : group) {
    if (!normalize_audit_record(record)) {
      ++metrics_.records_rejected;
      continue;
    }
    AuditEntry e;
    static_cast<AuditRecord&>(e) = std::move(record);
    e.seq = head.seq + 1;
    e.ts = audit_timestamp(now_micros());
    e.prev_hash = std::move(head.hash);
    e.hash = audit_hash(e);
    head = {e.seq, e.hash};
    append_frame(frames, FrameType::kEntry, encode_audit_payload(e));
    ++appended;
  }
  if (appended > 0) {
    // One write and one fdatasync per group; head and on_durable move only after both.
    if (Status s = write_at(segment_fd_, frames, active_.size); !s) return s;
    if (::fdatasync(segment_fd_) != 0) return errno_error("audit segment fdatasync failed");
    active_.size += frames.size();
    active_.entries += appended;
    written_ = head;
    metrics_.entries_written += appended;
    set_durable(std::move(head));
  }
  if (opts_.on_durable) opts_.on_durable(group.back().first);
  return {};
}

// §8.4 sealing, in this order: trailer frame; fsync and chmod 0444; the next
// segment written as .tmp, fsynced, renamed; the directory fsynced. The file
// digest is taken over the bytes read back from the file, not from memory, and
// streamed: reading the whole 64 MiB segment into a string spiked the relay's
// RSS by ~150 MiB at each seal (buzz-load soak).
Status AuditLog::seal_and_rotate(int64_t now_us) {
  SegmentTrailer trailer{written_.seq, active_.entries, {}, {}, now_us};
  Result<uint64_t> hashed = sha256_file(active_.path, trailer.file_digest.data());
  if (!hashed) return Error{hashed.error()};
  if (*hashed != active_.size) return Error{"audit segment " + active_.path + " changed under the writer"};
  from_hex(written_.hash, &trailer.last_hash);
  std::string frame;
  append_frame(frame, FrameType::kTrailer, encode_trailer_payload(trailer));
  if (Status s = write_at(segment_fd_, frame, active_.size); !s) return s;
  if (::fsync(segment_fd_) != 0 || ::fchmod(segment_fd_, 0444) != 0) {
    return errno_error("cannot seal audit segment " + active_.path);
  }
  ::close(segment_fd_);
  segment_fd_ = -1;

  const SegmentHeader next{written_.seq + 1, trailer.last_hash, now_us};
  Result<std::string> path = create_segment(dir_, next);
  if (!path) return Error{path.error()};
  segment_fd_ = ::open(path->c_str(), O_WRONLY | O_CLOEXEC);
  if (segment_fd_ < 0) return errno_error("cannot open " + *path);
  active_ = {*path, next, kSegmentHeaderBytes, 0};
  return {};
}

}  // namespace buzz::engine
