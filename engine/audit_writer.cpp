// The audit chains' queue and writer thread; see audit_writer.h.
#include "engine/audit_writer.h"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "engine/thread_role.h"

namespace buzz::engine {
namespace {

constexpr size_t kGroupMaxRecords = 256;
// Longer than the 2 ms of docs/reference/audit.md §8.4: no OK waits for the chain (the server
// keeps a durable pending copy until on_durable), so a wider window only means
// fewer fdatasyncs (or transactions), which dominate the writer's cost.
constexpr auto kGroupWindow = std::chrono::milliseconds(10);

}  // namespace

AuditWriter::AuditWriter(AuditOptions opts, AuditHead durable) : opts_(std::move(opts)), durable_(std::move(durable)) {}

AuditWriter::~AuditWriter() { stop(); }

void AuditWriter::start() {
  writer_ = std::thread([this] { run_writer(); });
}

bool AuditWriter::try_append(std::vector<TicketedRecord>&& records) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || !failure_.ok() || queue_.size() + records.size() > opts_.queue_capacity) return false;
    const bool was_empty = queue_.empty();
    for (TicketedRecord& r : records) queue_.push_back(std::move(r));
    metrics_.queue_depth = queue_.size();
    // The writer waits for a first record, then for a full group or its window:
    // records in between would only wake it to go back to sleep.
    if (!was_empty && queue_.size() < kGroupMaxRecords) return true;
  }
  queue_cv_.notify_one();
  return true;
}

void AuditWriter::requeue(std::vector<TicketedRecord> records) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || !failure_.ok()) return;
    for (TicketedRecord& r : records) queue_.push_back(std::move(r));
    metrics_.queue_depth = queue_.size();
  }
  queue_cv_.notify_one();
}

AuditHead AuditWriter::head() const {
  std::lock_guard lock(mu_);
  return durable_;
}

Status AuditWriter::status() const {
  std::lock_guard lock(mu_);
  return failure_;
}

void AuditWriter::set_durable(AuditHead head) {
  std::lock_guard lock(mu_);
  durable_ = std::move(head);
}

void AuditWriter::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  queue_cv_.notify_one();
  if (writer_.joinable()) writer_.join();
}

void AuditWriter::fail(Status why) {
  std::lock_guard lock(mu_);
  failure_ = std::move(why);
  queue_.clear();
  metrics_.queue_depth = 0;
}

void AuditWriter::run_writer() {
  set_thread_role("buzz-audit", ThreadRole::kBackground);  // no OK waits for the chain
  std::vector<TicketedRecord> group;
  while (take_group(group)) {
    if (Status s = write_group(group); !s) return fail(std::move(s));
  }
}

bool AuditWriter::take_group(std::vector<TicketedRecord>& group) {
  std::unique_lock lock(mu_);
  queue_cv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
  if (queue_.empty()) return false;  // stopping, and everything queued is written
  // Group commit (§8.4): up to 256 records, or whatever arrives within the window.
  queue_cv_.wait_for(lock, kGroupWindow, [&] { return queue_.size() >= kGroupMaxRecords || stopping_; });
  const auto end = queue_.begin() + ptrdiff_t(std::min(queue_.size(), kGroupMaxRecords));
  group.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(end));
  queue_.erase(queue_.begin(), end);
  metrics_.queue_depth = queue_.size();
  return true;
}

}  // namespace buzz::engine
