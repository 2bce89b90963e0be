// The start-up reconciliation of the team tables; see team_reconciler.h.
#include "server/app/team_reconciler.h"

#include <string>

#include "engine/thread_role.h"
#include "server/common/log.h"

namespace buzz::server {

void TeamReconciler::start() {
  thread_ = std::thread([this] {
    engine::set_thread_role("buzz-reconcile", engine::ThreadRole::kBackground);
    run();
  });
}

void TeamReconciler::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TeamReconciler::run() {
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (attempt > 0) {
      std::unique_lock lock(mu_);
      if (wake_.wait_for(lock, kInterval, [this] { return stopping_; })) return;
    }
    auto rows = source_();
    if (!rows) {
      log_warn("team reconciliation: cannot read the team tables", {{"attempt", std::to_string(attempt + 1)},
                                                                    {"error", rows.error()}});
      continue;
    }
    TeamChange change;
    change.op = TeamChange::Op::kReconcile;
    change.rows = std::move(*rows);
    if (!writer_.submit({ChangeTeam{std::move(change)}, kUnanswered, {}})) {
      log_warn("team reconciliation: the store writer is full, next attempt later", {{"attempt", std::to_string(attempt + 1)}});
    }
  }
}

}  // namespace buzz::server
