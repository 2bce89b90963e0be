// TeamReconciler: BUZZ_RECONCILE_CHANNELS (docs/reference/compat-backends.md §6.4).
// The original's development and CI set-up starts the relay, then inserts
// channels, members and users straight into its team tables; the original
// reconciles every 5 s for 2 minutes after start so that they become channels
// with their group state (39000–39002). So does this: each attempt reads the
// channels and members tables (StoreBackend::original_channels; nothing on the
// embedded store) and hands them to the store writer as a TeamChange
// (kReconcile), which adds what the relay does not know and publishes the
// group state of every channel that gained something or has none stored.
//
// Threads: its own; the writer applies each attempt on the writer thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/event_store.h"
#include "engine/result.h"
#include "server/pipeline/store_writer.h"

namespace buzz::server {

class TeamReconciler {
 public:
  using Source = std::function<engine::Result<std::vector<engine::StateWrite>>()>;
  static constexpr int kAttempts = 24;  // the first at once, then one per interval: 2 minutes
  static constexpr std::chrono::seconds kInterval{5};

  TeamReconciler(StoreWriter& writer, Source source) : writer_(writer), source_(std::move(source)) {}
  ~TeamReconciler() { stop(); }

  // After the writer started.
  void start();
  // Ends the attempts left (at shutdown, before the writer stops).
  void stop();

 private:
  void run();

  StoreWriter& writer_;
  const Source source_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace buzz::server
