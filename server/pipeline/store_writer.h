// StoreWriter: the one thread that writes to the event store (docs/threads.md).
//
// Loops submit verified events; the writer drains its whole queue into one
// batch (group commit across connections), writes it, and only then hands the
// OK replies and the committed events back to the relay. Ordering rule: no OK
// true leaves before the batch holding its event is durable in the WAL.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <variant>
#include <vector>

#include "engine/event.h"
#include "engine/event_store.h"
#include "engine/kinds.h"
#include "engine/pubsub.h"
#include "engine/shared_rate_counter.h"
#include "net/connection.h"
#include "server/access/relay_membership.h"
#include "server/feeds/audit_feed.h"
#include "server/feeds/search_feeder.h"
#include "server/pipeline/remote_queue.h"
#include "server/team/dm_request.h"
#include "server/team/team_model.h"

namespace buzz::server {

// WriteJob::origin.loop for events nobody waits an OK for (relay-signed ones),
// and the origin of such a job.
inline constexpr uint16_t kNoReply = UINT16_MAX;
inline constexpr net::ConnId kUnanswered{kNoReply, 0, 0};

// What a WriteJob asks of the writer: one alternative per kind of work, each
// planned by its own branch of StoreWriter::plan (a std::visit, so a new
// alternative nobody plans does not compile).
//
// An event to store: a client's, or a relay-signed one (origin.loop == kNoReply).
struct StoreEvent {
  std::shared_ptr<const engine::Event> event{};
  std::string channel{};  // known before the channel rules run: a command's, a relay-signed event's
  bool proxy = false;   // submitted under proxy:submit: the channel-membership check is skipped (docs/reference/protocol.md §6.6)
  // A relay-signed event (origin.loop == kNoReply) that still runs the channel rules: a
  // workflow's 9002 acting for its owner. A refusal comes back in the outcome's replies.
  bool admit = false;
  // A relay-signed event whose submitter waits for it (a workflow's action):
  // answered in the outcome's replies, a duplicate as OK, like a client's.
  bool answer = false;
  // A command a CommandRunner already ran: stored in `channel` as it is, never
  // fanned out, answered OK with this message.
  std::optional<std::string> ran{};
};
// A NIP-43 relay-membership command (9030–9032, 28936): executed, not stored.
struct RunMembership {
  std::shared_ptr<const engine::Event> event{};
};
// An audit entry that belongs to no event (AUTH, a refusal, an upload): recorded, no reply.
struct RecordAudit {
  engine::AuditRecord record;
};
// A DM operation asked over REST (or by a workflow): run by the team model, answered with a DmReply.
struct RunDm {
  DmRequest request;
};
// A TeamChange (a huddle's auto-add or archive). `done` is called on the writer
// thread once the batch is settled, true when the change was admitted and its
// batch committed; it must not block.
struct ChangeTeam {
  TeamChange change;
  std::function<void(bool committed)> done{};
};

struct WriteJob {
  std::variant<StoreEvent, RunMembership, RecordAudit, RunDm, ChangeTeam> work{};
  net::ConnId origin = kUnanswered;  // where the answer goes
  engine::Pubkey actor{};              // the authenticated submitter (audit actor)
  // Several nodes: an event's message use counted across them, still on its way
  // when the job was queued. A use the shared count put past the limit is
  // refused here, before it is stored (engine::RateTicket).
  std::shared_ptr<engine::RateTicket> rate{};
};

struct OkReply {
  net::ConnId to;
  engine::Id event_id;
  bool accepted;
  std::string reason;
};

// The answer to a kDm job, for the HTTP request waiting on `to`.
struct DmReply {
  net::ConnId to;
  DmOp op;
  DmOutcome outcome;
};

// An event now in the store, ready for fan-out. `raw` is shared by every recipient.
struct CommittedEvent {
  std::shared_ptr<const engine::Event> event;
  std::string channel;
  std::shared_ptr<const std::string> raw;
};

// The OK reason for an event whose id is already stored: command kinds say
// they were already run (docs/reference/kinds.md §2.5).
inline std::string_view duplicate_reason(uint16_t kind) {
  const engine::KindInfo* info = engine::find_kind(kind);
  return info && info->role == engine::KindRole::kCommand ? "duplicate: already processed" : "duplicate:";
}

// The event's JSON as a shared buffer that keeps the event alive: no copy.
inline std::shared_ptr<const std::string> raw_of(const std::shared_ptr<const engine::Event>& e) {
  return std::shared_ptr<const std::string>(e, &e->raw);
}

struct WriteBatchOutcome {
  std::vector<OkReply> replies;
  std::vector<CommittedEvent> committed;
  std::vector<engine::Id> removed;  // events this batch deleted or superseded
  std::vector<engine::Pubkey> lost_membership;
  std::vector<Revocation> revoked;  // applied after the batch's fan-out
  std::vector<DmReply> dm_replies;
  // Other nodes' events (submit_remote), to fan out like `committed`: the team
  // state they may depend on is caught up before this outcome leaves.
  std::vector<engine::RemoteEvent> remote;
  bool relieved = false;  // the writer is no longer congested: paused readers may resume
  uint64_t batch = 0;     // the write batch's number (StoreWriter::written()); 0: nothing was written
};

class StoreWriter {
 public:
  // Who hears each batch's outcome, on the writer thread, in this order:
  //  1. `observe`, the rooms that act on what was committed (the workflows: their
  //     triggers, and their own DM operations' answers, which they take out of
  //     the outcome so that nobody else answers them);
  //  2. `deliver`, the relay, which then answers every submitter and fans the
  //     committed events out.
  // So a workflow has seen an event before any client hears of it. Neither may block.
  struct Sinks {
    std::function<void(WriteBatchOutcome&)> observe;
    std::function<void(WriteBatchOutcome&&)> deliver;
  };

  StoreWriter(engine::EventStore& store, RelayMembership& membership, TeamModel& team, AuditFeed& audit,
              size_t capacity, std::chrono::seconds reaper_interval);
  ~StoreWriter();

  // Starts the thread, which hands every batch's outcome to `sinks`. Jobs
  // submitted before wait for it: the rooms that submit are built first, the
  // relay that receives the outcomes last.
  void start(Sinks sinks);
  // Before start(): several nodes' fan-out. Each batch's committed events are
  // published right after its COMMIT, on this thread, before the team
  // catch-up that this node's own fan-out waits for (the other nodes run
  // their own before theirs).
  void set_pubsub(engine::PubSub* pubsub) { pubsub_ = pubsub; }
  // Before start(): the full-text indexer, whose queue also holds back ingest
  // (see congested()), unless it has stalled.
  void set_search(const SearchFeeder* search) { search_ = search; }
  // Any thread. False if the queue is full (the caller answers rate-limited).
  bool submit(WriteJob&& job);
  // Any thread: an audit entry that belongs to no stored event (AUTH, a refusal,
  // an upload). False if the queue is full.
  bool submit_audit(engine::AuditRecord record);
  // The PubSub's thread: other nodes' events, fanned out after the writer's
  // next turn (see catch_up_team). Never blocks; a full queue drops its
  // oldest (RemoteQueue), and the number dropped is returned.
  size_t submit_remote(std::vector<engine::RemoteEvent>&& events);
  // Stores relay-signed events (start-up 13534, ...) as one batch.
  void submit_relay_events(std::vector<engine::Event> events);
  void stop();
  // Any thread: waits until every job submitted before the call is written and
  // its outcome handed to the sinks (a graceful stop's OKs); false at `deadline`.
  bool wait_settled(std::chrono::steady_clock::time_point deadline);
  // Any thread (not the writer's): runs `moment` on the writer thread after the
  // batch in progress and before the next one, and returns once it has run
  // (false, without running it, once the writer has stopped). Nothing is
  // written while it runs, so it sees the store, and with AuditFeed's
  // wait_durable the audit chain, at one point: a backup's (docs/storage.md).
  bool run_between_batches(const std::function<void()>& moment);
  size_t queued() const;
  // Write batches committed, and the jobs they held: jobs ÷ batches is the
  // group-commit size (how many events share one WAL append).
  uint64_t batches() const { return batches_.load(std::memory_order_relaxed); }
  uint64_t batched_jobs() const { return batched_jobs_.load(std::memory_order_relaxed); }
  uint64_t stored() const { return stored_.load(std::memory_order_relaxed); }  // new events, relay-signed ones included
  // Any thread. Write batches are numbered from 1: `writing()` is the newest
  // begun, `written()` the newest whose write returned, so every event of a
  // batch up to written() is visible to a read begun after it. A history
  // replay reads both (index/replay_horizon.h).
  uint64_t writing() const { return writing_.load(); }
  uint64_t written() const { return written_.load(); }
  // Any thread. True from the moment the queue, the audit log's or the search
  // indexer's passes half its capacity until all are back under an eighth: the relay then stops
  // reading from connections that send EVENTs (back-pressure), so a sustained
  // overload makes OKs slower instead of refusing them.
  bool congested() const { return congested_.load(std::memory_order_relaxed); }

 private:
  // One event to store in this batch: a client's own, or a relay-signed one
  // that follows from it (no job waits for its OK).
  struct Pending {
    std::shared_ptr<const engine::Event> event;
    std::string channel;
    const WriteJob* job = nullptr;
    std::string ok_reason{};  // a command's result, sent with OK true
    bool fanout = true;
    std::vector<engine::Id> deletes{};
    engine::Pubkey actor{};
    std::vector<engine::AuditRecord> audit{};  // the admission's channel / member actions
  };
  struct Batch {
    std::vector<Pending> pending;
    std::vector<engine::StateWrite> state;
    std::vector<engine::AuditRecord> audit;  // actions with no event of their own (a DM opened over REST)
    std::vector<DmReply> dm_replies;         // answered once the batch is durable
    std::vector<std::pair<std::function<void(bool)>, bool>> done;  // team changes' callbacks, whether admitted
    WriteBatchOutcome out;
  };

  void run();
  // Hands an outcome to the sinks, in their order (see Sinks).
  void hand_out(WriteBatchOutcome&& out);
  void process(std::vector<WriteJob>& jobs, std::vector<engine::RemoteEvent>& remote);
  // Stores the jobs (and the reaper's and the audit log's work) as one batch.
  void write_batch(std::vector<WriteJob>& jobs, Batch& batch);
  // Before any channel event of this outcome (this node's or another's) is fanned
  // out: the channels other nodes changed in the shared store are re-read, so
  // no event committed after a member's removal reaches them (docs/architecture.md).
  void catch_up_team(WriteBatchOutcome& out);
  // Whether planning these jobs (or the reaper's turn) may change a channel or
  // its members: such a batch is planned under the store's team lock.
  bool may_change_team(const std::vector<WriteJob>& jobs) const;
  // Takes the store's team lock and catches up with what other nodes committed
  // before it; false (planning goes on, on this node's view) when the lock failed.
  bool lock_team(std::vector<Revocation>* revoked);
  // Writer thread, under mu_: recomputes congested() from `queued` jobs and the
  // audit log; true when it just cleared (the sink is then told, unlocked).
  bool update_congestion(size_t queued);
  // The audit refusal for this batch's client events, after waiting up to
  // kAuditWait for the log to take its backlog: a refusal only for a log
  // that stays full.
  std::string audit_refusal();
  // Runs the checks that need the batch's order (membership, channel rules) and
  // lays out what to store.
  void plan(std::vector<WriteJob>& jobs, uint64_t now, Batch& batch);
  void follow(Batch& batch, engine::Event&& event, std::string channel);
  // plan()'s branches, one per kind of work. `refusal`: why this batch takes no
  // client event (the audit log is full), or empty.
  void plan_event(WriteJob& job, StoreEvent& work, uint64_t now, Batch& batch,
                  std::unordered_set<engine::Id, engine::KeyBytesHash>& admitted);
  void plan_membership(WriteJob& job, RunMembership& work, uint64_t now, Batch& batch);
  // Runs a DM operation; its reply waits for the batch.
  void plan_dm(WriteJob& job, RunDm& work, uint64_t now, bool audit_backlogged, Batch& batch);
  void plan_team_change(ChangeTeam& work, uint64_t now, Batch& batch);
  // The refusal a client event gets before it is planned (the audit log is
  // full, or the shared message count said no), or nullopt.
  std::optional<std::string> refused_before_plan(const WriteJob& job, const std::string& audit_refused,
                                                 std::chrono::steady_clock::time_point rate_deadline) const;
  // NIP-40's reaper, after the batch: erases up to kExpiredPerPass expired
  // events, audited as deletions in the same write (docs/storage.md, "Expiration").
  void reap_expired(uint64_t now, WriteBatchOutcome& out);
  // The audit records of what the write stored (docs/reference/audit.md §5).
  void audit_records(const Batch& batch, std::span<const engine::WriteResult> results);
  // OK replies and fan-out once the batch is durable (or failed).
  void settle(Batch& batch, const engine::Result<std::vector<engine::WriteResult>>& results);

  engine::EventStore& store_;
  RelayMembership& membership_;
  TeamModel& team_;
  AuditFeed& audit_;
  size_t capacity_;
  std::chrono::seconds reaper_interval_;
  std::chrono::steady_clock::time_point next_reap_;
  std::chrono::steady_clock::time_point next_expiry_reap_;  // NIP-40's reaper, on the same interval
  Sinks sinks_;
  engine::PubSub* pubsub_ = nullptr;
  const SearchFeeder* search_ = nullptr;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<WriteJob> queue_;
  RemoteQueue remote_;
  std::vector<std::function<void()>> moments_;  // run_between_batches, in turn
  bool stopping_ = false;
  // Turns of run() that took the queue, and of those the ones whose outcome is
  // handed out; wait_settled waits on settled_cv_ for the second to catch up.
  uint64_t taken_ = 0;
  uint64_t settled_ = 0;
  std::condition_variable settled_cv_;
  std::atomic<uint64_t> batches_{0};
  std::atomic<uint64_t> writing_{0};
  std::atomic<uint64_t> written_{0};
  std::atomic<uint64_t> batched_jobs_{0};
  std::atomic<uint64_t> stored_{0};
  std::atomic<bool> congested_{false};
  std::thread thread_;
};

}  // namespace buzz::server
