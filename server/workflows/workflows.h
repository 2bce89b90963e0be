// Workflows: the workflow room (docs/reference/workflows.md). It keeps every workflow in
// memory (stored in the `workflows` family through engine::WorkflowTables),
// matches committed events against their triggers, runs the schedule, and
// executes runs step by step, each on a thread of its own, acting through the
// store writer with relay-signed events. Its REST handlers (workflow_api.cpp)
// are routed from server/http/.
//
// Threads:
//  - observe(): the store-writer thread, after every batch. It never blocks:
//    matching events go to a bounded queue (full = counted and dropped, like
//    the search feeder) and the DM answers for its own jobs are taken out.
//  - the dispatcher thread ("buzz-workflows"): creates runs from the queue,
//    the schedule ticks and approval expiry.
//  - one thread per executing run, at most max_concurrent (the permits).
//  - REST handlers: the loop thread of the request; they read the registry
//    under its shared lock and write records through WorkflowTables.
// Every run record change is written before the next step starts, so a
// restart resumes parked runs (delay, waiting_approval) from storage.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/event_store.h"
#include "engine/signature.h"
#include "engine/team_state.h"
#include "engine/workflow_records.h"
#include "net/http.h"
#include "server/access/gatekeeper.h"
#include "server/access/relay_membership.h"
#include "server/pipeline/command_runner.h"
#include "server/pipeline/store_writer.h"
#include "server/workflows/definition.h"
#include "server/workflows/interval_clock.h"
#include "server/workflows/outbound_http.h"
#include "server/workflows/run_context.h"
#include "server/workflows/save_checks.h"

namespace buzz::server {

// An authenticated REST caller, as the HTTP room hands it over.
struct WorkflowCaller {
  engine::Pubkey pubkey{};
  // The token's channel list, then channel access: a refusal, or nullopt.
  std::function<std::optional<net::HttpResponse>(std::string_view channel)> check_channel;
  // The token's channel list alone: managing a workflow needs no read right.
  std::function<bool(std::string_view channel)> grant_reaches;
};

class Workflows final : public CommandRunner {
 public:
  struct Options {
    uint32_t max_concurrent = 100;
    uint64_t default_step_timeout = 300;
    std::chrono::seconds tick{60};  // the scheduler loop (BUZZ_WORKFLOW_TICK_SECS, a testing aid)
    OutboundHttp::Options http;     // call_webhook: timeouts, size cap, the allow-list
    std::string public_http_url;    // the relay's URL as http(s), for the approval links sent to approvers
  };
  struct Services {
    engine::EventStore& store;
    engine::TeamState& team;
    StoreWriter& writer;
    const RelayMembership& membership;  // relay roles: who manages every workflow
    const Gatekeeper& gatekeeper;       // whether an owner may still act (Gatekeeper::admitted)
  };
  struct Counters {
    std::atomic<uint64_t> runs_completed{0}, runs_failed{0}, runs_cancelled{0};
    std::atomic<uint64_t> actions[7] = {};
    std::atomic<uint64_t> runs_by_trigger[6] = {};  // TriggerKind order, then manual
    std::atomic<uint64_t> triggers_dropped{0};
    std::atomic<uint64_t> ticks{0};  // scheduler ticks done: what a test waits on to know one has passed
    std::atomic<uint64_t> webhook_calls{0}, webhook_ms_total{0};
  };

  Workflows(Options options, const Services& services, const engine::Keypair& relay_key);
  ~Workflows();

  // Start-up: loads the workflows; runs that died with the last process are
  // failed, parked ones are picked up by start().
  engine::Status load();
  void start();
  void stop();

  // Store-writer thread: see the file comment.
  void observe(WriteBatchOutcome& outcome);

  // REST (workflow_api.cpp): docs/reference/rest-api.md §3.13–§3.14. Loop thread.
  // Newest first; archived ones only with ?include_archived=true.
  net::HttpResponse list_workflows(const WorkflowCaller& who, std::string_view channel, const net::HttpRequest& req);
  // An answer given later, from another thread.
  using Later = std::function<void(net::HttpResponse)>;
  // Create and update answer at once, or nullopt when the save must first
  // resolve webhook host names (§9.5; a lookup can take seconds, never on a
  // loop thread): the answer then comes through `later`.
  std::optional<net::HttpResponse> create_workflow(const WorkflowCaller& who, std::string_view channel,
                                                   const net::HttpRequest& req, Later later);
  net::HttpResponse get_workflow(const WorkflowCaller& who, std::string_view id);
  std::optional<net::HttpResponse> update_workflow(const WorkflowCaller& who, std::string_view id,
                                                   const net::HttpRequest& req, Later later);
  // PATCH {"status": …}, and POST …/disable and …/enable: its status, one of
  // engine::is_workflow_status. The owner or a manager of the channel or relay
  // disables or archives; only the owner, while she may read the channel,
  // makes it active or brings it back from the archive.
  net::HttpResponse set_status(const WorkflowCaller& who, std::string_view id, std::string_view status);
  net::HttpResponse patch_workflow(const WorkflowCaller& who, std::string_view id, const net::HttpRequest& req);
  // The owner or a manager (docs/access.md).
  net::HttpResponse delete_workflow(const WorkflowCaller& who, std::string_view id);
  net::HttpResponse list_runs(const WorkflowCaller& who, std::string_view id, const net::HttpRequest& req);
  net::HttpResponse list_approvals(const WorkflowCaller& who, std::string_view id, std::string_view run_id);
  net::HttpResponse trigger_workflow(const WorkflowCaller& who, std::string_view id, const net::HttpRequest& req);
  // No user auth: the webhook secret is the authorization.
  net::HttpResponse webhook(std::string_view id, const net::HttpRequest& req);
  // `key` is the raw token, or with by_hash its SHA-256 hex.
  net::HttpResponse act_on_approval(const WorkflowCaller& who, std::string_view key, bool by_hash, bool grant,
                                    const net::HttpRequest& req);

  // The HEAD-era control plane (workflow_commands.cpp, docs/reference/workflows.md §14): kinds
  // 30620 (create), 46020 (trigger), 46030 / 46031 (grant / deny). Loop thread.
  bool runs(uint16_t kind) const override;
  Outcome run(const engine::Event& command) override;

  const Counters& counters() const { return counters_; }
  // The Prometheus lines of the counters (workflow_metrics.cpp), for /metrics.
  std::string metrics_text() const;
  size_t approvals_pending() const { return approvals_pending_.load(std::memory_order_relaxed); }
  size_t runs_active() const { return size_t(active_.load(std::memory_order_relaxed)); }

 private:
  struct Workflow {
    engine::WorkflowRecord record;
    Definition def;
  };
  using WorkflowPtr = std::shared_ptr<const Workflow>;
  // A run about to execute (or resume) on its own thread.
  struct RunJob {
    WorkflowPtr workflow;
    engine::RunRecord run;
    RunContext context;
    size_t start_step = 0;
    bool resuming_delay = false;  // step start_step is a delay in progress (run.resume_at)
    bool parked = false;          // set by request_approval: the run waits, its thread ends
    bool after_approval = false;  // resumed by a grant: no permit means wait for one, not fail
  };
  // A committed event that may trigger workflows, taken off the writer thread.
  struct Offered {
    std::shared_ptr<const engine::Event> event;
    std::string channel;
  };

  // --- registry (workflows.cpp) ---
  WorkflowPtr find(std::string_view id) const;
  std::vector<WorkflowPtr> in_channel(std::string_view channel) const;
  std::vector<WorkflowPtr> all() const;
  void put(WorkflowPtr w);
  void erase(std::string_view id);
  // Read-modify-write of one stored workflow, and its deletion, serialised so
  // that a PUT, a status change and a delete never undo one another.
  engine::Result<WorkflowPtr> edit(std::string_view id, const std::function<void(Workflow&)>& change);
  engine::Status drop(std::string_view id);

  // --- the owner's rights at the moment of acting (owner_rights.cpp, docs/access.md) ---
  // Why the owner may not act for this workflow now (`posts`: the step writes
  // in its channel), or nullopt.
  std::optional<std::string> owner_refusal(const Workflow& w, bool posts) const;
  // The channel's owners and admins, and the relay's.
  bool manages(const engine::Pubkey& pk, std::string_view channel) const;
  // Its owner or a manager, with a token that reaches its channel.
  bool may_manage(const WorkflowCaller& who, const Workflow& w) const;
  // Marks the workflow disabled (kept, with its runs), when its owner lost access.
  void disable(std::string_view id);

  // --- triggers and the dispatcher (workflows.cpp, triggers.cpp) ---
  void dispatch_loop();
  void match_event(const Offered& o);
  void tick(uint64_t now);
  // Creates the pending run record and starts it; the run id, or an error text.
  engine::Result<std::string> start_run(const WorkflowPtr& w, TriggerContext context, std::string trigger_kind,
                                        std::string trigger_event_id);
  void launch(RunJob job);

  // --- execution (run_executor.cpp) ---
  void execute(RunJob job);
  // One action; its output or the error text. `step_index` for approvals.
  engine::Result<StepOutput> run_action(RunJob& job, size_t step_index, const Step& step, uint64_t timeout);
  void finish(RunJob& job, engine::RunStatus status, std::optional<std::string> error);
  void append_trace(engine::RunRecord& run, std::string entry_json);
  void save(const engine::RunRecord& run);

  // --- actions (actions.cpp, webhook_action.cpp, approvals.cpp) ---
  engine::Result<StepOutput> send_message(RunJob& job, const std::string& text, const std::string& channel_override);
  engine::Result<StepOutput> send_dm(RunJob& job, const std::string& to, const std::string& text);
  // The DM channel of {opener, to}, made or reused; waits for the store writer.
  engine::Result<std::string> open_dm(const engine::Pubkey& opener, const engine::Pubkey& to);
  // The raw approval token, privately to a named approver: a DM from the relay's
  // own identity, so it is not lost in a conversation with the workflow's owner.
  void send_approval_dm(const RunJob& job, const engine::Pubkey& approver, const std::string& text);
  engine::Result<StepOutput> set_topic(RunJob& job, const std::string& topic);
  engine::Result<StepOutput> add_reaction(RunJob& job, const std::string& emoji);
  engine::Result<StepOutput> delay(RunJob& job, size_t step_index, uint64_t secs, uint64_t timeout);
  engine::Result<StepOutput> call_webhook(const Step& step, const RunContext& context, uint64_t timeout);
  // Parks the run on an approval: nullopt when parked, else the step's error.
  std::optional<std::string> request_approval(RunJob& job, size_t step_index, const Step& step);
  void expire_approvals(uint64_t now);
  // After a decision is stored: resumes (grant) or cancels (deny) the run if it still waits.
  void decide(const engine::ApprovalRecord& a, bool grant);
  // The approval step's trace entry ({"approved","approver","note"}) and the outputs rebuilt from the trace.
  void append_decision(RunJob& job, const engine::ApprovalRecord& a, bool granted);
  // Writes `e` (relay-signed) through the store writer and waits until it is
  // committed; the error text ("webhook error: …") otherwise.
  // admit: run the channel rules on it (a 9002 acting for the owner).
  engine::Status store_event(engine::Event e, const std::string& channel, const engine::Pubkey& actor,
                             bool admit = false);
  engine::Event relay_event(uint16_t kind, std::vector<engine::Tag> tags, std::string content) const;
  // The 46xxx events of a run (docs/reference/workflows.md §12), best effort. `actor`: whom the
  // audit log names for it (an approver's decision), else the relay.
  void publish_run_event(const RunJob& job, uint16_t kind, std::vector<engine::Tag> extra, std::string content,
                         const std::optional<engine::Pubkey>& actor = std::nullopt);

  // --- REST and command helpers (workflow_api.cpp, approvals.cpp, workflow_commands.cpp) ---
  struct Created {
    WorkflowPtr workflow;
    std::string secret;  // the new webhook secret, for a webhook trigger
  };
  // Stores a new workflow (named `name`, or its definition's name when empty).
  engine::Result<Created> store_new(const engine::Pubkey& owner, const std::string& channel, Definition def,
                                    std::string name);
  // A refused approval decision, as REST (status, error) and a command's OK (reason) word it.
  struct ApprovalRefusal {
    int status;
    std::string rest, command;
  };
  using ChannelCheck = std::function<bool(std::string_view channel)>;
  // Grants or denies the approval whose token hash is `hash` for `who`, who must
  // be able to read the workflow's channel (`can_read`); the stored record in *out.
  std::optional<ApprovalRefusal> record_decision(const engine::Pubkey& who, const ChannelCheck& can_read,
                                                 const std::string& hash, bool grant, std::optional<std::string> note,
                                                 engine::ApprovalRecord* out);
  Outcome create_by_command(const engine::Event& e);
  Outcome trigger_by_command(const engine::Event& e);
  Outcome decide_by_command(const engine::Event& e);
  // save() at once when there is nothing to resolve; else the lookups and
  // save() on a thread of their own (at most kMaxResolving), answered through later.
  std::optional<net::HttpResponse> after_resolving(std::vector<HostCheck> hosts, std::function<net::HttpResponse()> save,
                                                   Later later);
  static constexpr size_t kMaxResolving = 8;
  std::string workflow_json(const Workflow& w, const std::string& secret = {}) const;
  net::HttpResponse start_from_request(const WorkflowPtr& w, TriggerContext context, std::string kind,
                                       const net::HttpRequest& req);
  // Loads a workflow for a caller: 400/404/403 as docs/reference/rest-api.md words them.
  std::optional<net::HttpResponse> load_for(const WorkflowCaller& who, std::string_view id, WorkflowPtr* out,
                                            std::string_view forbidden);
  // The same for a caller who would manage it (may_manage): no read right needed.
  std::optional<net::HttpResponse> load_to_manage(const WorkflowCaller& who, std::string_view id, WorkflowPtr* out,
                                                  std::string_view forbidden);

  bool stopping_now();
  // Sleeps until the Unix second `until` (engine::unix_now's clock) or stop();
  // false when stopping.
  bool sleep_until(uint64_t until);

  const Options options_;
  engine::EventStore& store_;
  engine::TeamState& team_;
  StoreWriter& writer_;
  const RelayMembership& membership_;
  const Gatekeeper& gatekeeper_;
  engine::WorkflowTables tables_;
  const engine::Keypair key_;
  OutboundHttp http_;
  Counters counters_;
  IntervalClock intervals_;  // the dispatcher thread's

  mutable std::shared_mutex registry_mu_;
  std::map<std::string, WorkflowPtr, std::less<>> by_id_;
  std::unordered_map<std::string, std::vector<std::string>> by_channel_;
  std::atomic<size_t> event_workflows_{0};  // enabled event-triggered workflows: 0 lets observe() skip everything
  std::mutex edit_mu_;                      // edit() and drop()

  std::mutex mu_;  // guards the fields below
  std::condition_variable cv_;
  std::deque<Offered> queue_;
  std::vector<RunJob> resumable_;  // parked runs found by load(), started by start()
  std::vector<RunJob> awaiting_permit_;  // granted runs that found no permit: retried each tick
  bool stopping_ = false;
  std::thread dispatcher_;
  size_t live_threads_ = 0;  // run and host-lookup threads not yet ended (stop() waits for them)
  size_t resolving_ = 0;     // saves resolving webhook hosts
  std::atomic<int> active_{0};  // runs holding a permit
  std::atomic<size_t> approvals_pending_{0};
  std::mutex approvals_mu_;  // approval decisions and the run changes they make are compare-and-sets

  // Events waiting to be committed (store_event), and DM answers (send_dm).
  std::mutex commit_mu_;
  std::condition_variable commit_cv_;
  struct CommitWait {
    bool done = false;
    std::string refusal;  // the channel rules' reason, for a job they refused
    int waiters = 0;      // two runs may write one event (the same reaction in the same second)
  };
  std::unordered_map<engine::Id, CommitWait, engine::KeyBytesHash> commit_waiters_;
  std::unordered_map<uint32_t, std::optional<DmOutcome>> dm_waiters_;
  uint32_t next_dm_request_ = 1;
};

}  // namespace buzz::server
