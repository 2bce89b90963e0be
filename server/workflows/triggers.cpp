// Which workflows an event or the clock fires (docs/reference/workflows.md §4–§5), and the
// creation of their runs. Dispatcher thread, except start_run, which the REST
// handlers (manual trigger, webhook) call too.
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/condition.h"
#include "engine/cron.h"
#include "engine/hex.h"
#include "engine/kinds.h"
#include "server/common/log.h"
#include "server/workflows/duration.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

bool has_workflow_tag(const engine::Event& e) {
  for (const engine::Tag& t : e.tags) {
    if (!t.empty() && (t[0] == "buzz:workflow" || t[0] == "sprout:workflow")) return true;
  }
  return false;
}

// §5.1: events workflows never see (loop prevention).
bool never_triggers(const engine::Event& e, const engine::Pubkey& relay) {
  if (e.kind >= kind::kWorkflowTriggered && e.kind <= kind::kApprovalDenied) return true;
  if (e.kind == kind::kGiftWrap) return true;
  const engine::KindInfo* info = engine::find_kind(e.kind);
  if (info && info->role == engine::KindRole::kCommand) return true;
  return e.pubkey == relay && has_workflow_tag(e);
}

}  // namespace

void Workflows::match_event(const Offered& o) {
  const engine::Event& e = *o.event;
  if (never_triggers(e, key_.pubkey)) return;
  TriggerKind kind = e.kind == kind::kStreamMessage ? TriggerKind::kMessagePosted
                     : e.kind == kind::kReaction    ? TriggerKind::kReactionAdded
                                                    : TriggerKind::kDiffPosted;
  std::vector<WorkflowPtr> candidates = in_channel(o.channel);
  if (candidates.empty()) return;
  TriggerContext context;
  context.text = e.content;
  context.channel_id = o.channel;
  context.timestamp = std::to_string(e.created_at);
  // The actor tag speaks for someone only on the relay's own events (Buzz decision, §5.2).
  context.author = engine::to_hex(e.pubkey);
  if (e.pubkey == key_.pubkey) {
    engine::Pubkey actor;
    if (engine::from_hex(e.first_tag_value("actor"), &actor)) context.author = engine::to_hex(actor);
  }
  context.message_id = e.id_hex();
  if (kind == TriggerKind::kReactionAdded) {
    context.emoji = e.content;
    for (const engine::Tag& t : e.tags) {  // the last e tag naming an event: the reacted message
      engine::Id id;
      if (t.size() >= 2 && t[0] == "e" && engine::from_hex(t[1], &id)) context.message_id = t[1];
    }
  }
  // Built once per event, however many filters read them.
  std::optional<engine::ConditionVariables> variables;
  for (const WorkflowPtr& w : candidates) {
    const Definition& d = w->def;
    if (!d.enabled || w->record.status != engine::kWorkflowActive || d.trigger.on != kind) continue;
    if (kind == TriggerKind::kReactionAdded && d.trigger.emoji && *d.trigger.emoji != e.content) continue;
    if (d.trigger.compiled_filter) {
      if (!variables) variables = RunContext{context, {}}.variables(false);
      // false or an evaluation error: skipped silently, no run (§2.2).
      auto pass = d.trigger.compiled_filter->evaluate(*variables);
      if (!pass || !*pass) continue;
    }
    auto run = start_run(w, context, std::string(trigger_name(kind)), e.id_hex());
    if (!run) log_warn("workflow run not started", {{"workflow_id", w->record.id}, {"error", run.error()}});
  }
}

void Workflows::tick(uint64_t now) {
  expire_approvals(now);
  std::vector<RunJob> retry;
  {
    std::lock_guard lock(mu_);
    retry.swap(awaiting_permit_);
  }
  for (RunJob& job : retry) launch(std::move(job));
  std::unordered_set<std::string> listed;
  for (const WorkflowPtr& w : all()) {
    const Definition& d = w->def;
    if (d.trigger.on != TriggerKind::kSchedule || !d.enabled || w->record.status != engine::kWorkflowActive) continue;
    if (w->record.channel_id.empty()) {
      log_warn("schedule workflow without a channel skipped", {{"workflow_id", w->record.id}});
      continue;
    }
    bool fire = false;
    if (d.trigger.cron) {
      auto schedule = engine::CronSchedule::parse(*d.trigger.cron);
      fire = schedule && schedule->due(now, uint64_t(options_.tick.count()));
    } else if (d.trigger.interval) {
      auto interval = parse_duration(*d.trigger.interval);
      if (!interval) continue;
      fire = intervals_.due(w->record.id, *interval, now, [&]() -> std::optional<uint64_t> {
        auto runs = tables_.runs(w->record.id);  // newest first
        if (!runs) return std::nullopt;
        for (const engine::RunRecord& r : *runs) {
          if (r.trigger_kind == "schedule") return r.created_at;
        }
        return std::nullopt;
      });
    }
    listed.insert(w->record.id);
    if (!fire) continue;
    TriggerContext context;
    context.channel_id = w->record.channel_id;
    context.timestamp = std::to_string(now);
    auto run = start_run(w, std::move(context), "schedule", "");
    if (!run) log_warn("scheduled run not started", {{"workflow_id", w->record.id}, {"error", run.error()}});
  }
  intervals_.keep_only(listed);
}

engine::Result<std::string> Workflows::start_run(const WorkflowPtr& w, TriggerContext context, std::string trigger_kind,
                                                 std::string trigger_event_id) {
  engine::RunRecord run;
  run.id = engine::random_uuid();
  run.workflow_id = w->record.id;
  run.status = engine::RunStatus::kPending;
  run.trigger_context = context.to_json();
  size_t trigger = 5;  // manual
  for (size_t k = 0; k < 5; ++k) {
    if (trigger_name(TriggerKind(k)) == trigger_kind) trigger = k;
  }
  counters_.runs_by_trigger[trigger].fetch_add(1, std::memory_order_relaxed);
  run.trigger_kind = std::move(trigger_kind);
  run.trigger_event_id = std::move(trigger_event_id);
  run.created_at_ms = engine::unix_now_ms();
  run.created_at = run.created_at_ms / 1000;
  if (auto s = tables_.put_run(run); !s) return engine::Error{"database error: " + s.error()};
  std::string id = run.id;
  launch(RunJob{w, std::move(run), RunContext{std::move(context), {}}, 0, false});
  return id;
}

}  // namespace buzz::server
