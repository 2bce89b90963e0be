// The step loop of one run (docs/reference/workflows.md §8): the permit, each step's `if:`,
// its templates and its action, the trace, and the state machine's record
// changes. Runs on the run's own thread (Workflows::launch).
#include "engine/clock.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "server/common/log.h"
#include "server/workflows/duration.h"
#include "server/workflows/template.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

// A step's templated field, or "" when the step has none.
engine::Result<std::string> templated(const Step& step, std::string_view field, const RunContext& context) {
  auto value = step.field(field);
  if (!value) return std::string();
  return render_template(*value, context);
}

// A step's output as its 46003 event carries it (docs/reference/workflows.md §12): as it is up
// to 4 KiB; past that, its first 4 KiB as a JSON string (cut on a UTF-8 boundary).
std::string announced_output(const std::string& output_json) {
  constexpr size_t kMaxAnnounced = 4096;
  if (output_json.size() <= kMaxAnnounced) return output_json;
  size_t cut = kMaxAnnounced;
  while (cut > 0 && (uint8_t(output_json[cut]) & 0xC0) == 0x80) --cut;
  return json_string(std::string_view(output_json).substr(0, cut));
}

// The actions that write in the workflow's channel (the others read it, or act elsewhere).
bool posts_in_channel(ActionKind a) {
  return a == ActionKind::kSendMessage || a == ActionKind::kSetChannelTopic || a == ActionKind::kAddReaction;
}

}  // namespace

void Workflows::save(const engine::RunRecord& run) {
  if (auto s = tables_.put_run(run); !s) log_error("workflow run not saved", {{"run_id", run.id}, {"error", s.error()}});
}

void Workflows::append_trace(engine::RunRecord& run, std::string entry_json) {
  std::string& trace = run.execution_trace;
  if (trace.size() < 2 || trace.back() != ']') trace = "[]";
  trace.insert(trace.size() - 1, (trace.size() > 2 ? "," : "") + entry_json);
}

void Workflows::finish(RunJob& job, engine::RunStatus status, std::optional<std::string> error) {
  engine::RunRecord& run = job.run;
  run.status = status;
  run.error_message = std::move(error);
  run.completed_at = engine::unix_now();
  run.resume_at = 0;
  save(run);
  (status == engine::RunStatus::kCompleted   ? counters_.runs_completed
   : status == engine::RunStatus::kCancelled ? counters_.runs_cancelled
                                             : counters_.runs_failed)
      .fetch_add(1, std::memory_order_relaxed);
  if (status == engine::RunStatus::kCompleted) {
    publish_run_event(job, kind::kWorkflowCompleted, {}, "{}");
  } else if (status == engine::RunStatus::kFailed) {
    publish_run_event(job, kind::kWorkflowFailed, {},
                      json_object({{"error", json_string(run.error_message.value_or(""))}}));
  }
}

void Workflows::execute(RunJob job) {
  engine::RunRecord& run = job.run;
  // A permit for the whole execution, delays included; none free: the run fails (no queue, §8.1).
  if (active_.fetch_add(1) >= int(options_.max_concurrent)) {
    active_.fetch_sub(1);
    if (job.after_approval) {
      // Buzz decision (§11.2 grant, step 5): a granted run waits for a permit
      // in waiting_approval (its approval stays granted) and is retried each tick.
      run.status = engine::RunStatus::kWaitingApproval;
      save(run);
      std::lock_guard lock(mu_);
      awaiting_permit_.push_back(std::move(job));
      return;
    }
    finish(job, engine::RunStatus::kFailed, "capacity exceeded");
    return;
  }
  struct Permit {
    std::atomic<int>& active;
    ~Permit() { active.fetch_sub(1); }
  } permit{active_};

  run.status = engine::RunStatus::kRunning;
  if (run.started_at == 0) {
    run.started_at = engine::unix_now();
    std::vector<engine::Tag> tags;
    if (!run.trigger_event_id.empty()) tags.push_back({"e", run.trigger_event_id});
    publish_run_event(job, kind::kWorkflowTriggered, std::move(tags),
                      json_object({{"trigger", json_string(run.trigger_kind)}}));
  }
  save(run);
  const std::vector<Step>& steps = job.workflow->def.steps;
  size_t i = job.start_step;
  if (job.resuming_delay && i < steps.size()) {
    // A delay that was in progress when the relay stopped: sleep what is left of it.
    auto secs = parse_duration(steps[i].field("duration").value_or(""));
    if (!sleep_until(run.resume_at)) return;
    StepOutput out{{"slept_secs", OutputValue::integer(int64_t(secs ? *secs : 0))}};
    append_trace(run, json_object({{"output", output_json(out)}, {"status", json_string("completed")},
                                   {"step_id", json_string(steps[i].id)}}));
    job.context.outputs[steps[i].id] = std::move(out);
    run.resume_at = 0;
    ++i;
  }
  for (; i < steps.size(); ++i) {
    const Step& step = steps[i];
    run.current_step = uint32_t(i);
    // Every step, the first and those after a delay, an approval or a restart,
    // acts only while the workflow stands and its owner may still read the
    // channel (docs/access.md): this bounds what its templates can reach too.
    WorkflowPtr current = find(job.workflow->record.id);
    if (!current) return;  // deleted, and its runs with it
    if (auto refusal = owner_refusal(*current, posts_in_channel(step.action))) {
      disable(current->record.id);
      finish(job, engine::RunStatus::kFailed, *refusal + "; the workflow is disabled");
      return;
    }
    if (current->record.status != engine::kWorkflowActive) {
      finish(job, engine::RunStatus::kFailed, "the workflow is " + current->record.status);
      return;
    }
    if (step.condition) {
      auto pass = engine::evaluate_condition(*step.condition, job.context.variables());
      if (!pass) {
        finish(job, engine::RunStatus::kFailed, pass.error());
        return;
      }
      if (!*pass) {
        append_trace(run, json_object({{"status", json_string("skipped")}, {"step_id", json_string(step.id)}}));
        save(run);
        continue;
      }
    }
    uint64_t timeout = step.timeout_secs.value_or(options_.default_step_timeout);
    if (step.action == ActionKind::kDelay && !step.timeout_secs) {
      // Buzz: a delay's own length plus 30 s, so the seed's 300 s delay never races the default timeout.
      auto secs = parse_duration(step.field("duration").value_or(""));
      timeout = (secs ? *secs : 0) + 30;
    }
    publish_run_event(
        job, kind::kWorkflowStepStarted, {{"step", step.id}},
        json_object({{"step_index", std::to_string(i)}, {"action", json_string(action_name(step.action))}}));
    auto output = run_action(job, i, step, timeout);
    if (job.parked) return;  // waiting_approval: the record is saved, the permit is released
    if (!output) {
      if (stopping_now()) return;  // shutting down: the record stays for the next start-up
      publish_run_event(job, kind::kWorkflowStepFailed, {{"step", step.id}},
                        json_object({{"step_index", std::to_string(i)}, {"error", json_string(output.error())}}));
      finish(job, engine::RunStatus::kFailed, output.error());
      return;
    }
    counters_.actions[size_t(step.action)].fetch_add(1, std::memory_order_relaxed);
    std::string output_text = output_json(*output);
    publish_run_event(job, kind::kWorkflowStepCompleted, {{"step", step.id}},
                      json_object({{"step_index", std::to_string(i)}, {"output", announced_output(output_text)}}));
    append_trace(run, json_object({{"output", std::move(output_text)}, {"status", json_string("completed")},
                                   {"step_id", json_string(step.id)}}));
    job.context.outputs[step.id] = std::move(*output);
    save(run);
  }
  run.current_step = uint32_t(steps.size());
  finish(job, engine::RunStatus::kCompleted, std::nullopt);
}

engine::Result<StepOutput> Workflows::run_action(RunJob& job, size_t step_index, const Step& step, uint64_t timeout) {
  const RunContext& c = job.context;
  switch (step.action) {
    case ActionKind::kSendMessage: {
      auto text = templated(step, "text", c);
      if (!text) return engine::Error{text.error()};
      auto channel = templated(step, "channel", c);
      if (!channel) return engine::Error{channel.error()};
      return send_message(job, *text, *channel);
    }
    case ActionKind::kSendDm: {
      auto to = templated(step, "to", c);
      if (!to) return engine::Error{to.error()};
      auto text = templated(step, "text", c);
      if (!text) return engine::Error{text.error()};
      return send_dm(job, *to, *text);
    }
    case ActionKind::kSetChannelTopic: {
      auto topic = templated(step, "topic", c);
      if (!topic) return engine::Error{topic.error()};
      return set_topic(job, *topic);
    }
    case ActionKind::kAddReaction: {
      auto emoji = templated(step, "emoji", c);
      if (!emoji) return engine::Error{emoji.error()};
      return add_reaction(job, *emoji);
    }
    case ActionKind::kCallWebhook: return call_webhook(step, c, timeout);
    case ActionKind::kRequestApproval: {
      if (auto error = request_approval(job, step_index, step)) return engine::Error{*error};
      return StepOutput{};
    }
    case ActionKind::kDelay: {
      auto secs = parse_duration(step.field("duration").value_or(""));
      if (!secs) return engine::Error{"invalid definition: " + secs.error()};
      if (*secs > kMaxDelaySecs) {
        return engine::Error{"invalid definition: delay exceeds maximum of 300 seconds (got " + std::to_string(*secs) +
                             "s); use the scheduled resume pattern for long delays"};
      }
      return delay(job, step_index, *secs, timeout);
    }
  }
  return engine::Error{"invalid definition: unknown action"};
}

}  // namespace buzz::server
