// The registry, start-up recovery, the writer's hand-off and the dispatcher;
// see workflows.h. Trigger matching and the schedule are in triggers.cpp.
#include "server/workflows/workflows.h"

#include <algorithm>

#include "engine/clock.h"
#include "engine/kind_numbers.h"
#include "engine/thread_role.h"
#include "server/common/log.h"

namespace buzz::server {
namespace {

constexpr size_t kQueueCapacity = 10000;

// Counted in event_workflows_: an event trigger that may fire.
bool event_triggered(const engine::WorkflowRecord& r, const Definition& d) {
  return d.enabled && r.status == engine::kWorkflowActive &&
         (d.trigger.on == TriggerKind::kMessagePosted || d.trigger.on == TriggerKind::kReactionAdded ||
          d.trigger.on == TriggerKind::kDiffPosted);
}

}  // namespace

Workflows::Workflows(Options options, const Services& services, const engine::Keypair& relay_key)
    : options_(std::move(options)),
      store_(services.store),
      team_(services.team),
      writer_(services.writer),
      membership_(services.membership),
      gatekeeper_(services.gatekeeper),
      tables_(services.store),
      key_(relay_key),
      http_(options_.http) {}

Workflows::~Workflows() { stop(); }

engine::Status Workflows::load() {
  auto records = tables_.workflows();
  if (!records) return engine::Error{records.error()};
  for (engine::WorkflowRecord& r : *records) {
    auto def = parse_definition(r.definition);
    if (!def) {
      log_warn("stored workflow no longer parses", {{"workflow_id", r.id}, {"error", def.error()}});
      continue;
    }
    put(std::make_shared<const Workflow>(Workflow{std::move(r), std::move(*def)}));
  }
  // Runs whose thread died with the last process are failed; parked ones resume.
  auto runs = tables_.all_runs();
  if (!runs) return engine::Error{runs.error()};
  const uint64_t now = engine::unix_now();
  size_t failed = 0;
  for (engine::RunRecord& run : *runs) {
    if (run.status == engine::RunStatus::kWaitingApproval) {
      // Granted but not yet resumed (no permit, or the process ended first): resume now.
      WorkflowPtr w = find(run.workflow_id);
      auto approvals = tables_.approvals(run.workflow_id, run.id);
      if (!w || !approvals) continue;
      for (const engine::ApprovalRecord& a : *approvals) {
        if (a.status != engine::ApprovalStatus::kGranted || a.step_index != run.current_step) continue;
        RunJob job{w, run, {}, a.step_index + 1, false};
        job.after_approval = true;
        job.context.trigger = TriggerContext::from_json(run.trigger_context);
        job.context.outputs = outputs_from_trace(run.execution_trace);
        if (!job.context.outputs.contains(a.step_id)) append_decision(job, a, /*granted=*/true);
        resumable_.push_back(std::move(job));
        break;
      }
      continue;
    }
    if (run.status != engine::RunStatus::kPending && run.status != engine::RunStatus::kRunning) continue;
    WorkflowPtr w = find(run.workflow_id);
    if (w && run.status == engine::RunStatus::kRunning && run.resume_at != 0) {
      RunJob job{w, run, {}, run.current_step, true};
      job.context.trigger = TriggerContext::from_json(run.trigger_context);
      job.context.outputs = outputs_from_trace(run.execution_trace);
      resumable_.push_back(std::move(job));
      continue;
    }
    run.status = engine::RunStatus::kFailed;
    run.error_message = "interrupted by relay restart";
    run.completed_at = now;
    run.resume_at = 0;
    if (auto s = tables_.put_run(run); !s) return s;
    ++failed;
  }
  auto approvals = tables_.all_approvals();
  if (!approvals) return engine::Error{approvals.error()};
  size_t pending = 0;
  for (const auto& a : *approvals) pending += a.status == engine::ApprovalStatus::kPending;
  approvals_pending_.store(pending);
  log_info("workflows loaded", {{"workflows", std::to_string(by_id_.size())},
                                {"resuming", std::to_string(resumable_.size())},
                                {"interrupted", std::to_string(failed)}});
  return {};
}

void Workflows::start() {
  dispatcher_ = std::thread([this] {
    engine::set_thread_role("buzz-workflows", engine::ThreadRole::kForeground);
    dispatch_loop();
  });
  std::vector<RunJob> resume;
  {
    std::lock_guard lock(mu_);
    resume.swap(resumable_);
  }
  for (RunJob& job : resume) launch(std::move(job));
}

void Workflows::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  {
    std::lock_guard lock(commit_mu_);  // no waiter can miss the wake-up between its check and its wait
  }
  commit_cv_.notify_all();
  if (dispatcher_.joinable()) dispatcher_.join();
  // Run threads end at their next wait (a delay, a commit) or when their
  // webhook call returns; a parked record stays for the next start-up.
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return live_threads_ == 0; });
}

bool Workflows::stopping_now() {
  std::lock_guard lock(mu_);
  return stopping_;
}

bool Workflows::sleep_until(uint64_t until) {
  // A second at a time: a clock a test moved forward (docs/testing.md, "The
  // test clock") ends the sleep within a second, as the system's would.
  const uint64_t until_ms = until * 1000;
  std::unique_lock lock(mu_);
  for (uint64_t now_ms = engine::unix_now_ms(); !stopping_ && now_ms < until_ms; now_ms = engine::unix_now_ms()) {
    cv_.wait_for(lock, std::chrono::milliseconds(std::min<uint64_t>(until_ms - now_ms, 1000)), [&] { return stopping_; });
  }
  return !stopping_;
}

Workflows::WorkflowPtr Workflows::find(std::string_view id) const {
  std::shared_lock lock(registry_mu_);
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<Workflows::WorkflowPtr> Workflows::in_channel(std::string_view channel) const {
  std::shared_lock lock(registry_mu_);
  std::vector<WorkflowPtr> out;
  auto it = by_channel_.find(std::string(channel));
  if (it == by_channel_.end()) return out;
  for (const std::string& id : it->second) {
    if (auto w = by_id_.find(id); w != by_id_.end()) out.push_back(w->second);
  }
  return out;
}

std::vector<Workflows::WorkflowPtr> Workflows::all() const {
  std::shared_lock lock(registry_mu_);
  std::vector<WorkflowPtr> out;
  for (const auto& [id, w] : by_id_) out.push_back(w);
  return out;
}

void Workflows::put(WorkflowPtr w) {
  std::unique_lock lock(registry_mu_);
  auto& ids = by_channel_[w->record.channel_id];
  if (auto old = by_id_.find(w->record.id); old != by_id_.end()) {
    if (event_triggered(old->second->record, old->second->def)) --event_workflows_;
  } else {
    ids.push_back(w->record.id);
  }
  if (event_triggered(w->record, w->def)) ++event_workflows_;
  by_id_[w->record.id] = std::move(w);
}

void Workflows::erase(std::string_view id) {
  std::unique_lock lock(registry_mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;
  if (event_triggered(it->second->record, it->second->def)) --event_workflows_;
  auto& ids = by_channel_[it->second->record.channel_id];
  std::erase(ids, std::string(id));
  by_id_.erase(it);
}

engine::Result<Workflows::WorkflowPtr> Workflows::edit(std::string_view id,
                                                       const std::function<void(Workflow&)>& change) {
  std::lock_guard lock(edit_mu_);
  WorkflowPtr old = find(id);
  if (!old) return engine::Error{"workflow not found"};
  auto w = std::make_shared<Workflow>(*old);
  change(*w);
  if (auto s = tables_.put_workflow(w->record); !s) return engine::Error{"database error: " + s.error()};
  put(w);
  return WorkflowPtr(std::move(w));
}

engine::Status Workflows::drop(std::string_view id) {
  std::lock_guard lock(edit_mu_);
  if (auto s = tables_.delete_workflow(id); !s) return s;
  erase(id);
  return {};
}

void Workflows::observe(WriteBatchOutcome& outcome) {
  // Our own DM operations are answered here, never by the HTTP side.
  if (!outcome.dm_replies.empty()) {
    std::lock_guard lock(commit_mu_);
    std::erase_if(outcome.dm_replies, [&](const DmReply& r) {
      if (r.to.loop != kNoReply) return false;
      if (auto it = dm_waiters_.find(r.to.slot); it != dm_waiters_.end()) it->second = r.outcome;
      return true;
    });
    commit_cv_.notify_all();
  }
  {
    std::lock_guard lock(commit_mu_);
    if (!commit_waiters_.empty()) {
      bool any = false;
      for (const CommittedEvent& c : outcome.committed) {
        if (auto it = commit_waiters_.find(c.event->id); it != commit_waiters_.end()) it->second.done = any = true;
      }
      for (const OkReply& r : outcome.replies) {
        if (r.to.loop != kNoReply) continue;
        if (auto it = commit_waiters_.find(r.event_id); it != commit_waiters_.end()) {
          it->second.done = true;
          if (!r.accepted) it->second.refusal = r.reason;
          any = true;
        }
      }
      if (any) commit_cv_.notify_all();
    }
  }
  if (event_workflows_.load(std::memory_order_relaxed) == 0) return;
  std::vector<Offered> offered;
  for (const CommittedEvent& c : outcome.committed) {
    const uint16_t kind = c.event->kind;
    if ((kind != kind::kStreamMessage && kind != kind::kReaction && kind != kind::kDiff) || c.channel.empty()) continue;
    offered.push_back({c.event, c.channel});
  }
  if (offered.empty()) return;
  {
    std::lock_guard lock(mu_);
    for (Offered& o : offered) {
      if (queue_.size() >= kQueueCapacity) {
        counters_.triggers_dropped.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      queue_.push_back(std::move(o));
    }
  }
  cv_.notify_all();
}

void Workflows::dispatch_loop() {
  auto next_tick = std::chrono::steady_clock::now() + options_.tick;
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait_until(lock, next_tick, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::deque<Offered> batch;
    batch.swap(queue_);
    lock.unlock();
    for (const Offered& o : batch) match_event(o);
    if (std::chrono::steady_clock::now() >= next_tick) {
      next_tick = std::chrono::steady_clock::now() + options_.tick;
      tick(engine::unix_now());
      counters_.ticks.fetch_add(1, std::memory_order_relaxed);
    }
    lock.lock();
  }
}

void Workflows::launch(RunJob job) {
  std::lock_guard lock(mu_);
  if (stopping_) return;  // the record stays as it is; the next start-up sees it
  ++live_threads_;
  std::thread([this, job = std::move(job)]() mutable {
    engine::set_thread_role("buzz-workflow-run", engine::ThreadRole::kBackground);
    execute(std::move(job));
    std::lock_guard done(mu_);
    --live_threads_;
    cv_.notify_all();
  }).detach();
}

}  // namespace buzz::server
