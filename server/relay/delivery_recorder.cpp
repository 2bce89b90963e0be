// The fan-out's delivery buffers and their flusher; see delivery_recorder.h.
#include "server/relay/delivery_recorder.h"

#include "engine/clock.h"
#include "engine/thread_role.h"
#include "server/common/log.h"

namespace buzz::server {

DeliveryRecorder::DeliveryRecorder(engine::DeliveryLog& log, size_t loops, DeliveryOptions options)
    : log_(log), options_(options) {
  for (size_t i = 0; i < loops; ++i) {
    buffers_.push_back(std::make_unique<Buffer>());
    buffers_.back()->entries.reserve(options_.per_loop);
  }
  spare_.reserve(options_.per_loop);
}

DeliveryRecorder::~DeliveryRecorder() { stop(); }

void DeliveryRecorder::start() {
  thread_ = std::thread([this] {
    engine::set_thread_role("buzz-deliveries", engine::ThreadRole::kBackground);
    run();
  });
}

void DeliveryRecorder::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  flush();
}

void DeliveryRecorder::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    flush();
    // Retention: each new day drops the partitions that fell out of it.
    const uint32_t today = uint32_t(engine::unix_now() / engine::kSecondsPerDay);
    const uint32_t keep_from = today > options_.retention_days ? today - options_.retention_days : 0;
    if (keep_from != retained_from_) {
      if (auto s = log_.drop_before(keep_from); !s) log_warn(s.error());
      retained_from_ = keep_from;
    }
    lock.lock();
    wake_.wait_for(lock, options_.flush_every, [this] { return stopping_ || hurry_; });
    hurry_ = false;
  }
}

void DeliveryRecorder::hurry() {
  {
    std::lock_guard lock(mu_);
    hurry_ = true;
  }
  wake_.notify_one();
}

void DeliveryRecorder::flush() {
  for (auto& buf : buffers_) {
    {
      std::lock_guard lock(buf->mu);
      if (buf->entries.empty()) continue;
      buf->entries.swap(spare_);
    }
    if (auto s = log_.record(spare_); !s) {
      log_warn(s.error(), {{"deliveries", std::to_string(spare_.size())}});
      failed_.fetch_add(spare_.size(), std::memory_order_relaxed);
    } else {
      written_.fetch_add(spare_.size(), std::memory_order_relaxed);
    }
    spare_.clear();  // keeps its capacity: the next swap hands a loop a reserved buffer
  }
  if (const uint64_t dropped = dropped_.load(std::memory_order_relaxed); dropped != reported_) {
    log_warn("delivery buffers full: deliveries not recorded for receipts (docs/limits.md, \"Deliveries\")",
             {{"dropped", std::to_string(dropped - reported_)}});
    reported_ = dropped;
  }
}

std::string DeliveryRecorder::metrics_text() const {
  return "# HELP buzz_delivery_records_written_total deliveries written to the delivery log (receipts)\n"
         "# TYPE buzz_delivery_records_written_total counter\n"
         "buzz_delivery_records_written_total " + std::to_string(written()) + "\n"
         "# HELP buzz_delivery_records_dropped_total deliveries not recorded for receipts: a loop's buffer was full "
         "(the flusher behind) or the log refused the write (docs/limits.md, Deliveries)\n"
         "# TYPE buzz_delivery_records_dropped_total counter\n"
         "buzz_delivery_records_dropped_total{reason=\"buffer_full\"} " + std::to_string(dropped()) + "\n"
         "buzz_delivery_records_dropped_total{reason=\"write_failed\"} " + std::to_string(failed()) + "\n";
}

}  // namespace buzz::server
