// The store-writer thread; see store_writer.h.
#include "server/pipeline/store_writer.h"

#include <algorithm>
#include <unordered_set>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/thread_role.h"
#include "server/common/log.h"
#include "server/common/overloaded.h"

namespace buzz::server {
namespace {

constexpr auto kBacklogRetry = std::chrono::milliseconds(5);
// How long a batch waits for a full audit log before refusing its client events.
constexpr auto kAuditWait = std::chrono::seconds(2);
// How long a batch waits for the shared rate count of its messages (a Redis
// round trip, normally answered long before the batch is planned).
constexpr auto kRateWait = std::chrono::milliseconds(100);
// The most expired events one reaper pass erases (docs/limits.md): a full pass
// brings the next one forward to the next turn, so a backlog drains between
// client batches instead of in one long write.
constexpr size_t kExpiredPerPass = 1000;

}  // namespace

StoreWriter::StoreWriter(engine::EventStore& store, RelayMembership& membership, TeamModel& team, AuditFeed& audit,
                         size_t capacity, std::chrono::seconds reaper_interval)
    : store_(store),
      membership_(membership),
      team_(team),
      audit_(audit),
      capacity_(capacity),
      reaper_interval_(reaper_interval),
      next_reap_(std::chrono::steady_clock::now() + reaper_interval),
      next_expiry_reap_(next_reap_) {}

void StoreWriter::start(Sinks sinks) {
  sinks_ = std::move(sinks);
  thread_ = std::thread([this] {
    engine::set_thread_role("buzz-store", engine::ThreadRole::kForeground);
    run();
  });
}

StoreWriter::~StoreWriter() { stop(); }

void StoreWriter::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

bool StoreWriter::wait_settled(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  // A queue not yet taken needs the next turn; a turn under way is taken_ already.
  const uint64_t target = taken_ + (queue_.empty() && remote_.empty() ? 0 : 1);
  return settled_cv_.wait_until(lock, deadline, [&] { return settled_ >= target; });
}

size_t StoreWriter::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

bool StoreWriter::submit(WriteJob&& job) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= capacity_ || stopping_) return false;
    queue_.push_back(std::move(job));
    // Raised here, the moment the queue passes half, so the sender is held
    // back before the queue can fill; only the writer lowers it (update_congestion).
    if (queue_.size() >= capacity_ / 2) congested_.store(true, std::memory_order_relaxed);
    if (queue_.size() > 1) return true;  // the writer is already awake for this batch
  }
  cv_.notify_one();
  return true;
}

bool StoreWriter::submit_audit(engine::AuditRecord record) {
  return submit(WriteJob{RecordAudit{std::move(record)}});
}

size_t StoreWriter::submit_remote(std::vector<engine::RemoteEvent>&& events) {
  size_t lagged;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return 0;
    lagged = remote_.push(std::move(events));
  }
  cv_.notify_one();
  return lagged;
}

void StoreWriter::submit_relay_events(std::vector<engine::Event> events) {
  std::lock_guard lock(mu_);
  for (auto& e : events) {
    queue_.push_back(WriteJob{StoreEvent{std::make_shared<const engine::Event>(std::move(e))}});
  }
  cv_.notify_one();
}

bool StoreWriter::run_between_batches(const std::function<void()>& moment) {
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = false;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    moments_.push_back([&] {
      moment();
      std::lock_guard done_lock(done_mu);
      done = true;
      done_cv.notify_one();
    });
  }
  cv_.notify_one();
  std::unique_lock done_lock(done_mu);
  done_cv.wait(done_lock, [&] { return done; });
  return true;
}

void StoreWriter::run() {
  std::vector<WriteJob> jobs;
  std::vector<engine::RemoteEvent> remote;
  std::vector<std::function<void()>> moments;
  for (;;) {
    bool relieved = false;
    {
      std::unique_lock lock(mu_);
      if (settled_ != taken_) {  // the previous turn's outcome is out
        settled_ = taken_;
        settled_cv_.notify_all();
      }
      // The reaper's turn comes with the next batch, or alone when the relay is
      // idle; an audit backlog, or congestion, is looked at every few
      // milliseconds even then.
      auto wake = std::min(next_reap_, next_expiry_reap_);
      if (audit_.backlogged() || congested()) wake = std::min(wake, std::chrono::steady_clock::now() + kBacklogRetry);
      cv_.wait_until(lock, wake, [&] { return stopping_ || !queue_.empty() || !remote_.empty() || !moments_.empty(); });
      moments.swap(moments_);
      if (queue_.empty() && moments.empty() && stopping_) return;
      jobs.swap(queue_);
      ++taken_;
      remote = remote_.take();
      // Under the lock: no submit can raise the flag between this reading and its store.
      relieved = update_congestion(jobs.size());
    }
    if (relieved) {
      WriteBatchOutcome relief;
      relief.relieved = true;
      hand_out(std::move(relief));
    }
    process(jobs, remote);
    jobs.clear();
    remote.clear();
    // After the batch its caller may already wait on, before any later one.
    for (auto& moment : moments) moment();
    moments.clear();
  }
}

bool StoreWriter::update_congestion(size_t queued) {
  const bool was = congested();
  // Past half its capacity a queue holds ingest back, until it is under an eighth.
  auto pressing = [was](size_t n, size_t capacity) {
    return was ? n > capacity / 8 : n >= std::max<size_t>(1, capacity / 2);
  };
  // A stalled indexer is not waited for: its backlog takes what comes meanwhile.
  const bool indexing = search_ && !search_->stalled();
  const bool now = pressing(queued, capacity_) || pressing(audit_.queued(), audit_.capacity()) || audit_.backlogged() ||
                   (indexing && pressing(search_->waiting(), search_->capacity()));
  congested_.store(now, std::memory_order_relaxed);
  return was && !now;
}

std::string StoreWriter::audit_refusal() {
  const auto deadline = std::chrono::steady_clock::now() + kAuditWait;
  std::string refusal = audit_.refusal();
  while (!refusal.empty() && audit_.backlogged() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kBacklogRetry);
    refusal = audit_.refusal();
  }
  return refusal;
}

void StoreWriter::process(std::vector<WriteJob>& jobs, std::vector<engine::RemoteEvent>& remote) {
  const auto now = std::chrono::steady_clock::now();
  const bool reap_expired_now = now >= next_expiry_reap_;
  const bool write = !jobs.empty() || audit_.backlogged() || now >= next_reap_;
  if (!write && !reap_expired_now && remote.empty()) return;
  Batch batch;
  if (write) write_batch(jobs, batch);
  if (reap_expired_now) reap_expired(engine::unix_now(), batch.out);
  if (pubsub_) {
    for (const CommittedEvent& c : batch.out.committed) pubsub_->publish(c.event->id, c.channel, *c.raw);
  }
  batch.out.remote = std::move(remote);
  catch_up_team(batch.out);
  hand_out(std::move(batch.out));
  for (auto& [done, committed] : batch.done) done(committed);
}

void StoreWriter::hand_out(WriteBatchOutcome&& out) {
  if (sinks_.observe) sinks_.observe(out);
  sinks_.deliver(std::move(out));
}

void StoreWriter::catch_up_team(WriteBatchOutcome& out) {
  auto in_channel = [](const auto& e) { return !e.channel.empty(); };
  if (std::none_of(out.committed.begin(), out.committed.end(), in_channel) &&
      std::none_of(out.remote.begin(), out.remote.end(), in_channel)) {
    return;  // global events only: no channel rule to be current for
  }
  std::vector<Revocation> revoked = team_.catch_up();
  std::move(revoked.begin(), revoked.end(), std::back_inserter(out.revoked));
}

bool StoreWriter::may_change_team(const std::vector<WriteJob>& jobs) const {
  if (std::chrono::steady_clock::now() >= next_reap_) return true;
  return std::any_of(jobs.begin(), jobs.end(), [](const WriteJob& job) {
    if (std::holds_alternative<ChangeTeam>(job.work) || std::holds_alternative<RunDm>(job.work)) return true;
    const auto* store = std::get_if<StoreEvent>(&job.work);
    if (!store) return false;
    const engine::KindInfo* info = engine::find_kind(store->event->kind);
    return info && info->role == engine::KindRole::kNip29Admin;
  });
}

bool StoreWriter::lock_team(std::vector<Revocation>* revoked) {
  if (engine::Status s = store_.lock_team(); !s) {
    log_warn("team lock not taken; planning on this node's view", {{"error", s.error()}});
    return false;
  }
  std::vector<Revocation> caught_up = team_.catch_up();
  std::move(caught_up.begin(), caught_up.end(), std::back_inserter(*revoked));
  return true;
}

void StoreWriter::write_batch(std::vector<WriteJob>& jobs, Batch& batch) {
  // Nodes sharing a store plan team changes one node at a time, each on
  // everything the others committed (the lock is a no-op on the embedded
  // store): two owners demoting each other on two nodes at once must not both
  // win, leaving a channel without an owner.
  std::vector<Revocation> caught_up;  // kept apart: a failed write's settle() drops the batch's own
  const bool team_locked = may_change_team(jobs) && lock_team(&caught_up);
  plan(jobs, engine::unix_now(), batch);
  std::vector<engine::WriteRequest> requests;
  requests.reserve(batch.pending.size());
  for (const Pending& p : batch.pending) requests.push_back({p.event.get(), p.channel, p.deletes});
  // Audit records depend on each outcome (only new events are logged), so they
  // join the batch once the results are known, before it commits.
  // Numbered before the write and after it, in that order (seq_cst): a read
  // that sees any of this batch's rows then reads writing() >= its number.
  batch.out.batch = writing_.fetch_add(1) + 1;
  auto results = store_.write(requests, batch.state, [&](auto results, std::vector<engine::StateWrite>& more) {
    audit_records(batch, results);
    if (auto w = audit_.pending_write()) more.push_back(std::move(*w));
  });
  written_.store(batch.out.batch);
  if (team_locked) store_.unlock_team();
  team_.end_batch(bool(results));
  audit_.commit(bool(results));
  if (!jobs.empty()) {
    batches_.fetch_add(1, std::memory_order_relaxed);
    batched_jobs_.fetch_add(jobs.size(), std::memory_order_relaxed);
  }
  settle(batch, results);
  std::move(caught_up.begin(), caught_up.end(), std::back_inserter(batch.out.revoked));
  for (auto& [done, admitted] : batch.done) admitted = admitted && bool(results);
}

void StoreWriter::follow(Batch& batch, engine::Event&& event, std::string channel) {
  batch.pending.push_back({std::make_shared<const engine::Event>(std::move(event)), std::move(channel)});
}

void StoreWriter::plan(std::vector<WriteJob>& jobs, uint64_t now, Batch& batch) {
  batch.pending.reserve(jobs.size());
  std::unordered_set<engine::Id, engine::KeyBytesHash> admitted;  // channel changes this batch already runs
  // While the audit log cannot take more, client events are refused, never stored unaudited.
  const std::string audit_refused = audit_refusal();
  const auto rate_deadline = std::chrono::steady_clock::now() + kRateWait;
  if (std::chrono::steady_clock::now() >= next_reap_) {
    next_reap_ = std::chrono::steady_clock::now() + reaper_interval_;
    Admission reaped = team_.reap(now);
    for (Emitted& f : reaped.emitted) follow(batch, std::move(f.event), std::move(f.channel));
    std::move(reaped.state.begin(), reaped.state.end(), std::back_inserter(batch.state));
  }
  for (WriteJob& job : jobs) {
    std::visit(Overloaded{
                   [&](RecordAudit& work) { audit_.add(std::move(work.record)); },
                   [&](RunDm& work) { plan_dm(job, work, now, !audit_refused.empty(), batch); },
                   [&](ChangeTeam& work) { plan_team_change(work, now, batch); },
                   [&](RunMembership& work) {
                     if (auto refused = refused_before_plan(job, audit_refused, rate_deadline)) {
                       batch.out.replies.push_back({job.origin, work.event->id, false, std::move(*refused)});
                     } else {
                       plan_membership(job, work, now, batch);
                     }
                   },
                   [&](StoreEvent& work) {
                     if (auto refused = refused_before_plan(job, audit_refused, rate_deadline)) {
                       batch.out.replies.push_back({job.origin, work.event->id, false, std::move(*refused)});
                     } else {
                       plan_event(job, work, now, batch, admitted);
                     }
                   },
               },
               job.work);
  }
}

std::optional<std::string> StoreWriter::refused_before_plan(const WriteJob& job, const std::string& audit_refused,
                                                            std::chrono::steady_clock::time_point rate_deadline) const {
  if (!audit_refused.empty() && job.origin.loop != kNoReply) return audit_refused;  // relay-signed ones are stored
  if (job.rate && !job.rate->allowed_by(rate_deadline) && job.rate->refusal_stands()) return job.rate->refusal;
  return std::nullopt;
}

void StoreWriter::plan_membership(WriteJob& job, RunMembership& work, uint64_t now, Batch& batch) {
  const engine::Event& e = *work.event;
  RelayMembership::Outcome m = membership_.apply(e, now);
  batch.out.replies.push_back({job.origin, e.id, m.ok, m.reason});
  for (auto& ev : m.emitted) follow(batch, std::move(ev), "");
  if (m.removed) batch.out.lost_membership.push_back(*m.removed);
}

void StoreWriter::plan_event(WriteJob& job, StoreEvent& work, uint64_t now, Batch& batch,
                             std::unordered_set<engine::Id, engine::KeyBytesHash>& admitted) {
  const engine::Event& e = *work.event;
  const bool relay_signed = job.origin.loop == kNoReply;
  const WriteJob* waiting = !relay_signed || work.answer ? &job : nullptr;
  if (work.ran) {
    batch.pending.push_back({work.event, std::move(work.channel), waiting, std::move(*work.ran), false, {}, job.actor});
    return;
  }
  if ((relay_signed && !work.admit) || !TeamModel::handles(e.kind)) {
    batch.pending.push_back({work.event, std::move(work.channel), waiting, {}, true, {}, job.actor});
    return;
  }
  // A channel change must run once: a repeat is answered before it touches the team state.
  if (!admitted.insert(e.id).second || store_.contains(e.id, e.kind)) {
    batch.out.replies.push_back({job.origin, e.id, true, std::string(duplicate_reason(e.kind))});
    return;
  }
  Admission a = team_.admit(e, now, work.proxy);
  if (!a.ok) {
    batch.out.replies.push_back({job.origin, e.id, false, std::move(a.reason)});
    return;
  }
  batch.pending.push_back({work.event, std::move(a.channel), waiting, std::move(a.reason), a.fanout,
                           std::move(a.deletes), job.actor, std::move(a.audit)});
  for (Emitted& f : a.emitted) follow(batch, std::move(f.event), std::move(f.channel));
  std::move(a.state.begin(), a.state.end(), std::back_inserter(batch.state));
  std::move(a.revoked.begin(), a.revoked.end(), std::back_inserter(batch.out.revoked));
}

void StoreWriter::plan_dm(WriteJob& job, RunDm& work, uint64_t now, bool audit_backlogged, Batch& batch) {
  DmReply reply{job.origin, work.request.op, {}};
  if (audit_backlogged) {
    reply.outcome.status = DmStatus::kBusy;
  } else if (Admission a = team_.run_dm(work.request, now, &reply.outcome); a.ok) {
    for (Emitted& f : a.emitted) follow(batch, std::move(f.event), std::move(f.channel));
    std::move(a.state.begin(), a.state.end(), std::back_inserter(batch.state));
    std::move(a.audit.begin(), a.audit.end(), std::back_inserter(batch.audit));
  }
  batch.dm_replies.push_back(std::move(reply));
}

void StoreWriter::plan_team_change(ChangeTeam& work, uint64_t now, Batch& batch) {
  Admission a = team_.change(work.change, now);
  if (a.ok) {
    for (Emitted& f : a.emitted) follow(batch, std::move(f.event), std::move(f.channel));
    std::move(a.state.begin(), a.state.end(), std::back_inserter(batch.state));
    std::move(a.audit.begin(), a.audit.end(), std::back_inserter(batch.audit));
    std::move(a.revoked.begin(), a.revoked.end(), std::back_inserter(batch.out.revoked));
  }
  if (work.done) batch.done.emplace_back(std::move(work.done), a.ok);
}

void StoreWriter::reap_expired(uint64_t now, WriteBatchOutcome& out) {
  next_expiry_reap_ = std::chrono::steady_clock::now() + reaper_interval_;
  // A full audit log waits: the events stay hidden meanwhile, and are erased
  // only with their audit records.
  if (!audit_.refusal().empty()) return;
  // Nodes sharing a store reap one at a time, so no event is erased and audited twice.
  if (engine::Status s = store_.lock_team(); !s) return log_warn("expired events not reaped", {{"error", s.error()}});
  struct Unlock {
    engine::EventStore& store;
    ~Unlock() { store.unlock_team(); }
  } unlock{store_};
  auto expired = store_.expired(now, kExpiredPerPass);
  if (!expired) return log_warn("expired events not read", {{"error", expired.error()}});
  if (expired->empty()) return;
  if (expired->size() == kExpiredPerPass) next_expiry_reap_ = std::chrono::steady_clock::now();
  // The author set the expiration: the deletion is theirs, as a kind 5's is (docs/audit.md).
  for (const engine::ExpiredEvent& e : *expired) {
    audit_.add({engine::to_hex(e.id), e.kind, engine::to_hex(e.pubkey), std::string(engine::kActionEventDeleted),
                e.channel, json_object({{"expired_at", std::to_string(e.expires_at)}})});
  }
  std::vector<engine::StateWrite> state;
  if (auto w = audit_.pending_write()) state.push_back(std::move(*w));
  const engine::Status erased = store_.erase_expired(*expired, state);
  audit_.commit(bool(erased));
  if (!erased) return log_error("expired events not erased", {{"error", erased.error()}});
  for (const engine::ExpiredEvent& e : *expired) out.removed.push_back(e.id);
}

void StoreWriter::audit_records(const Batch& batch, std::span<const engine::WriteResult> results) {
  for (const engine::AuditRecord& rec : batch.audit) audit_.add(rec);
  for (size_t r = 0; r < batch.pending.size(); ++r) {
    if (results[r].outcome != engine::WriteOutcome::kStored) continue;
    const Pending& p = batch.pending[r];
    const engine::Event& e = *p.event;
    // Relay-signed follow-ups are the relay's own acts; a workflow's events name
    // the owner they act for (docs/reference/audit.md §5.2: event_created of send_message output).
    const std::string actor = engine::to_hex(p.job || p.actor != engine::Pubkey{} ? p.actor : e.pubkey);
    audit_.add({e.id_hex(), e.kind, actor, std::string(engine::kActionEventCreated), p.channel, "null"});
    for (const engine::AuditRecord& rec : p.audit) audit_.add(rec);
    if (e.kind != kind::kDeletion && e.kind != kind::kDeleteEvent) continue;
    for (const engine::Id& gone : results[r].removed) {
      auto target = store_.lookup(gone);
      audit_.add({engine::to_hex(gone), target ? target->kind : 0u, actor, std::string(engine::kActionEventDeleted),
                  target ? target->channel : "", json_object({{"deleted_by_event", json_string(e.id_hex())}})});
    }
  }
}

void StoreWriter::settle(Batch& batch, const engine::Result<std::vector<engine::WriteResult>>& results) {
  WriteBatchOutcome& out = batch.out;
  if (!results) {
    log_error("store write failed", {{"error", results.error()}});
    out.revoked.clear();
  }
  for (DmReply& r : batch.dm_replies) {
    if (!results && r.outcome.status == DmStatus::kOk) r.outcome.status = DmStatus::kFailed;
    out.dm_replies.push_back(std::move(r));
  }
  for (size_t r = 0; r < batch.pending.size(); ++r) {
    Pending& p = batch.pending[r];
    if (!results) {
      if (p.job) out.replies.push_back({p.job->origin, p.event->id, false, "error: internal server error"});
      continue;
    }
    const engine::WriteResult& res = (*results)[r];
    if (res.outcome == engine::WriteOutcome::kStored) stored_.fetch_add(1, std::memory_order_relaxed);
    if (res.outcome == engine::WriteOutcome::kStored && p.fanout) {
      out.committed.push_back({p.event, p.channel, raw_of(p.event)});
    }
    out.removed.insert(out.removed.end(), res.removed.begin(), res.removed.end());
    if (!p.job) continue;
    switch (res.outcome) {
      case engine::WriteOutcome::kStored: out.replies.push_back({p.job->origin, p.event->id, true, std::move(p.ok_reason)}); break;
      case engine::WriteOutcome::kDuplicate:
      case engine::WriteOutcome::kStale: out.replies.push_back({p.job->origin, p.event->id, true, "duplicate:"}); break;
      case engine::WriteOutcome::kInvalid: out.replies.push_back({p.job->origin, p.event->id, false, res.reason}); break;
    }
  }
}

}  // namespace buzz::server
