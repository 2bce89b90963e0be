// DeliveryRecorder: the fan-out's record of which members' sessions were sent
// each channel event, on its way to the DeliveryLog (engine/delivery_log.h;
// docs/storage.md, "Deliveries").
//
// The fan-out only appends: each loop has a buffer of fixed capacity, reserved
// at start, and a delivery is one entry copied into it (no lookup, no
// allocation); a full buffer drops the entry and counts it, as does a write
// the log refused (buzz_delivery_records_dropped_total). A flusher thread
// swaps each loop's buffer for its spare every `flush_every` (at once when one
// is half full) and writes the full one to the log, off the loops, then drops the partitions past the
// retention once a day. Bounds and their memory: docs/limits.md, "Deliveries".
//
// Threads: an Appender on a loop thread (one lock per fan-out task, taken on
// its first delivery, uncontended but for the flusher's swap); the flusher
// its own; the counters any.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/delivery_log.h"

namespace buzz::server {

struct DeliveryOptions {
  size_t per_loop = 16384;  // entries one loop holds between two flushes (68 bytes each)
  std::chrono::milliseconds flush_every{250};
  uint32_t retention_days = 30;  // partitions of events older than this are dropped
};

class DeliveryRecorder {
  struct alignas(64) Buffer {
    std::mutex mu;
    std::vector<engine::Delivery> entries;
  };

 public:
  DeliveryRecorder(engine::DeliveryLog& log, size_t loops, DeliveryOptions options);
  ~DeliveryRecorder();
  DeliveryRecorder(const DeliveryRecorder&) = delete;
  DeliveryRecorder& operator=(const DeliveryRecorder&) = delete;

  void start();
  // Writes what the buffers hold, then ends the flusher (after the loops stopped).
  void stop();

  // One fan-out task's deliveries on one loop.
  class Appender {
   public:
    Appender(DeliveryRecorder& r, size_t loop) : r_(r), buf_(*r.buffers_[loop]), lock_(buf_.mu, std::defer_lock) {}
    // A buffer half full is written at once, not at the next turn.
    ~Appender() {
      if (!lock_.owns_lock()) return;
      const bool half = buf_.entries.size() >= r_.options_.per_loop / 2;
      lock_.unlock();
      if (half) r_.hurry();
    }
    Appender(const Appender&) = delete;
    Appender& operator=(const Appender&) = delete;
    void add(const engine::Id& event, uint32_t day, const engine::Pubkey& member) {
      if (!lock_.owns_lock()) lock_.lock();
      if (buf_.entries.size() < r_.options_.per_loop) buf_.entries.push_back({event, member, day});
      else r_.dropped_.fetch_add(1, std::memory_order_relaxed);
    }

   private:
    DeliveryRecorder& r_;
    Buffer& buf_;
    std::unique_lock<std::mutex> lock_;
  };

  engine::DeliveryLog& log() const { return log_; }
  // Deliveries not recorded: a loop's buffer was full (the flusher behind), or the log refused the write.
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  uint64_t written() const { return written_.load(std::memory_order_relaxed); }
  // The counters as Prometheus text (buzz_delivery_records_*), for /metrics.
  std::string metrics_text() const;

 private:
  void run();
  void flush();
  void hurry();

  engine::DeliveryLog& log_;
  const DeliveryOptions options_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::vector<engine::Delivery> spare_;  // the flusher's: swapped with a loop's full buffer
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> failed_{0}, written_{0};  // the flusher's
  uint64_t reported_ = 0;       // dropped_ as of the last warning
  uint32_t retained_from_ = 0;  // the first day kept, as of the last drop
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool hurry_ = false;  // a loop's buffer is half full
  std::thread thread_;
};

}  // namespace buzz::server
