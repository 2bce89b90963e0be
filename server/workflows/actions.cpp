// The actions that act inside the relay (docs/reference/workflows.md §9.1–§9.4, §9.7): each
// writes a relay-signed event carrying ["buzz:workflow","true"] (so it never
// triggers a workflow) through the store writer, as the workflow's owner, and
// waits until it is committed. Run threads only.
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "engine/hex.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/text.h"
#include "server/common/log.h"
#include "server/workflows/workflows.h"

namespace buzz::server {
namespace {

constexpr size_t kMaxMessageBytes = 262144;  // the ingest limit of a message
constexpr size_t kMaxEmojiChars = 64;
constexpr auto kCommitWait = std::chrono::seconds(10);

const engine::Tag kWorkflowTag = {"buzz:workflow", "true"};

// Which workflow said it, and its name for people to read (a Buzz third
// element; docs/reference/workflows.md §12).
engine::Tag workflow_tag(const engine::WorkflowRecord& w) { return {"workflow", w.id, w.name}; }

std::string_view dm_status_text(DmStatus s) {
  switch (s) {
    case DmStatus::kOk: return "ok";
    case DmStatus::kBusy: return "the audit log is backlogged";
    case DmStatus::kFailed: return "the write failed";
    default: return "the DM could not be opened";
  }
}

}  // namespace

engine::Event Workflows::relay_event(uint16_t kind, std::vector<engine::Tag> tags, std::string content) const {
  return engine::signed_event(key_, kind, engine::unix_now(), std::move(tags), std::move(content));
}

engine::Status Workflows::store_event(engine::Event e, const std::string& channel, const engine::Pubkey& actor,
                                      bool admit) {
  auto event = std::make_shared<const engine::Event>(std::move(e));
  const engine::Id id = event->id;
  std::unique_lock lock(commit_mu_);
  ++commit_waiters_[id].waiters;
  lock.unlock();
  // proxy: the action checked the owner's access itself.
  StoreEvent work{.event = event, .channel = channel, .proxy = true, .admit = admit, .answer = true};
  const bool submitted = writer_.submit({std::move(work), kUnanswered, actor});
  lock.lock();
  if (submitted) commit_cv_.wait_for(lock, kCommitWait, [&] { return commit_waiters_[id].done || stopping_now(); });
  // The last waiter of an event takes its entry away, whichever way it ended.
  const CommitWait result = commit_waiters_[id];
  if (--commit_waiters_[id].waiters == 0) commit_waiters_.erase(id);
  if (!submitted) return engine::Error{"webhook error: the relay is busy, retry later"};
  if (!result.done) return engine::Error{"webhook error: the event was not stored in time"};
  if (!result.refusal.empty()) return engine::Error{"webhook error: " + result.refusal};
  return {};
}

engine::Result<StepOutput> Workflows::send_message(RunJob& job, const std::string& text,
                                                   const std::string& channel_override) {
  const engine::WorkflowRecord& w = job.workflow->record;
  std::string channel = w.channel_id;
  const std::string override_id(engine::trim(channel_override));
  if (!w.channel_id.empty() && !override_id.empty()) {
    if (!engine::parses_as_uuid(override_id)) {
      return engine::Error{"invalid definition: SendMessage: invalid channel override UUID: " + override_id};
    }
    if (override_id != w.channel_id) {
      return engine::Error{"invalid definition: SendMessage: channel override must match the workflow channel (" +
                           w.channel_id + ")"};
    }
  } else if (w.channel_id.empty()) {
    channel = !override_id.empty() ? override_id : job.context.trigger.channel_id;
    if (channel.empty()) {
      return engine::Error{"invalid definition: SendMessage: no channel_id available (trigger has no channel context "
                           "and no channel override was specified)"};
    }
  }
  if (engine::trim(text).empty()) return engine::Error{"webhook error: empty message content"};
  if (text.size() > kMaxMessageBytes) {
    return engine::Error{"webhook error: message content exceeds " + std::to_string(kMaxMessageBytes) + " bytes"};
  }
  const engine::ChannelAccess access = team_.access(channel, w.owner);
  if (!access.exists) return engine::Error{"webhook error: channel not found: " + channel};
  if (access.archived) return engine::Error{"webhook error: channel is archived: " + channel};
  if (!access.can_post()) {
    return engine::Error{"webhook error: invalid input: workflow owner does not have access to destination channel"};
  }
  engine::Event e = relay_event(9, {{"p", engine::to_hex(w.owner)}, {"h", channel}, workflow_tag(w), {"run", job.run.id}, kWorkflowTag}, text);
  const std::string id = e.id_hex();
  if (auto s = store_event(std::move(e), channel, w.owner); !s) return engine::Error{s.error()};
  return StepOutput{{"sent", OutputValue::boolean(true)}, {"event_id", OutputValue::string(id)}};
}

engine::Result<std::string> Workflows::open_dm(const engine::Pubkey& opener, const engine::Pubkey& to) {
  // Through the team model, as POST /api/dms does: the DM of {opener, to}, made or reused.
  uint32_t request;
  {
    std::lock_guard lock(commit_mu_);
    request = next_dm_request_++;
    dm_waiters_[request] = std::nullopt;
  }
  RunDm open{DmRequest{DmOp::kOpen, opener, {to}, {}, {}}};
  if (!writer_.submit({std::move(open), {kNoReply, request, 0}, opener})) {
    std::lock_guard lock(commit_mu_);
    dm_waiters_.erase(request);
    return engine::Error{"webhook error: the relay is busy, retry later"};
  }
  std::optional<DmOutcome> outcome;
  {
    std::unique_lock lock(commit_mu_);
    commit_cv_.wait_for(lock, kCommitWait, [&] { return dm_waiters_[request].has_value() || stopping_now(); });
    outcome = dm_waiters_[request];
    dm_waiters_.erase(request);
  }
  if (!outcome) return engine::Error{"webhook error: the DM was not opened in time"};
  if (outcome->status != DmStatus::kOk) {
    return engine::Error{"webhook error: SendDm: " + std::string(dm_status_text(outcome->status))};
  }
  return outcome->channel_id;
}

engine::Result<StepOutput> Workflows::send_dm(RunJob& job, const std::string& to_text, const std::string& text) {
  const engine::WorkflowRecord& w = job.workflow->record;
  engine::Pubkey to;
  const std::string to_trimmed(engine::trim(to_text));
  if (to_trimmed.size() != 64 || !engine::from_hex_any_case(to_trimmed, to.data(), to.size())) {
    return engine::Error{"invalid definition: SendDm: 'to' must be a 64-char hex pubkey"};
  }
  if (to == w.owner) return engine::Error{"invalid definition: SendDm: cannot DM the workflow owner"};
  if (engine::trim(text).empty()) return engine::Error{"webhook error: empty message content"};
  if (text.size() > kMaxMessageBytes) {
    return engine::Error{"webhook error: message content exceeds " + std::to_string(kMaxMessageBytes) + " bytes"};
  }
  auto dm = open_dm(w.owner, to);
  if (!dm) return engine::Error{dm.error()};
  engine::Event e = relay_event(9, {{"p", engine::to_hex(w.owner)}, {"h", *dm}, workflow_tag(w), {"run", job.run.id}, kWorkflowTag}, text);
  const std::string id = e.id_hex();
  if (auto s = store_event(std::move(e), *dm, w.owner); !s) return engine::Error{s.error()};
  return StepOutput{{"sent", OutputValue::boolean(true)}, {"event_id", OutputValue::string(id)},
                    {"channel_id", OutputValue::string(*dm)}};
}

void Workflows::send_approval_dm(const RunJob& job, const engine::Pubkey& approver, const std::string& text) {
  auto dm = open_dm(key_.pubkey, approver);
  if (!dm) {
    log_warn("approval DM not sent", {{"run_id", job.run.id}, {"error", dm.error()}});
    return;
  }
  // No `p`: the request itself (46010) is already in the approver's feed,
  // and this DM would count there a second time.
  engine::Event e = relay_event(9, {{"h", *dm}, workflow_tag(job.workflow->record), {"run", job.run.id}, kWorkflowTag},
                                "Workflow \"" + job.workflow->record.name + "\" asks for your approval: " + text);
  if (auto s = store_event(std::move(e), *dm, key_.pubkey); !s) {
    log_warn("approval DM not sent", {{"run_id", job.run.id}, {"error", s.error()}});
  }
}

engine::Result<StepOutput> Workflows::set_topic(RunJob& job, const std::string& topic) {
  const engine::WorkflowRecord& w = job.workflow->record;
  const std::string& channel = w.channel_id;
  if (channel.empty()) return engine::Error{"invalid definition: SetChannelTopic: the workflow has no channel"};
  const engine::ChannelAccess access = team_.access(channel, w.owner);
  if (!access.exists) return engine::Error{"webhook error: channel not found: " + channel};
  if (access.archived) return engine::Error{"webhook error: channel is archived: " + channel};
  if (!access.role) return engine::Error{"webhook error: workflow owner is not a member of channel " + channel};
  // The same change as the owner's own kind 9002 with a topic tag: the channel
  // rules check the owner's role and publish the refreshed 39000.
  engine::Event e = relay_event(
      kind::kEditMetadata, {{"h", channel}, {"topic", topic}, {"actor", engine::to_hex(w.owner)}, kWorkflowTag}, "");
  if (auto s = store_event(std::move(e), channel, w.owner, /*admit=*/true); !s) return engine::Error{s.error()};
  return StepOutput{{"topic", OutputValue::string(topic)}};
}

engine::Result<StepOutput> Workflows::add_reaction(RunJob& job, const std::string& emoji) {
  const engine::WorkflowRecord& w = job.workflow->record;
  const std::string& target_hex = job.context.trigger.message_id;
  engine::Id target;
  if (target_hex.empty() || !engine::from_hex(target_hex, &target)) {
    return engine::Error{"invalid definition: AddReaction: no trigger.message_id available"};
  }
  size_t chars = 0;
  for (char c : emoji) chars += (uint8_t(c) & 0xC0) != 0x80;
  if (emoji.empty() || chars > kMaxEmojiChars) {
    return engine::Error{"webhook error: AddReaction: emoji must be 1 to 64 characters"};
  }
  auto stored = store_.lookup(target);
  if (!stored || stored->deleted) return engine::Error{"webhook error: AddReaction: message not found: " + target_hex};
  const engine::ChannelAccess access = team_.access(stored->channel, w.owner);
  if (!stored->channel.empty() && !access.can_post()) {
    return engine::Error{"webhook error: invalid input: workflow owner does not have access to destination channel"};
  }
  if (access.archived) return engine::Error{"webhook error: channel is archived: " + stored->channel};
  // One reaction per (target, owner, emoji): a repeat is success with added = false.
  const std::string owner_hex = engine::to_hex(w.owner);
  engine::Filter filter;
  filter.kinds = std::vector<uint16_t>{kind::kReaction};
  filter.authors = std::vector<engine::Pubkey>{key_.pubkey};
  filter.tags.push_back({'e', {target_hex}});
  filter.normalize();
  std::string existing;
  (void)store_.query(filter, {}, [&](std::string_view raw, const engine::EventFields& fields) {
    if (!existing.empty()) return;
    auto parsed = engine::parse_event_json(raw);
    if (parsed.ok() && parsed->content == emoji && parsed->first_tag_value("actor") == owner_hex) {
      existing = engine::to_hex(fields.id, 32);
    }
  });
  if (!existing.empty()) {
    return StepOutput{{"added", OutputValue::boolean(false)}, {"event_id", OutputValue::string(existing)}};
  }
  engine::Event e = relay_event(7, {{"e", target_hex}, {"actor", owner_hex}, kWorkflowTag}, emoji);
  const std::string id = e.id_hex();
  if (auto s = store_event(std::move(e), stored->channel, w.owner); !s) return engine::Error{s.error()};
  return StepOutput{{"added", OutputValue::boolean(true)}, {"event_id", OutputValue::string(id)}};
}

engine::Result<StepOutput> Workflows::delay(RunJob& job, size_t step_index, uint64_t secs, uint64_t timeout) {
  // The wake-up time is stored first, so a restart resumes the delay where it stands.
  engine::RunRecord& run = job.run;
  run.current_step = uint32_t(step_index);
  run.resume_at = engine::unix_now() + std::min(secs, timeout);
  save(run);
  if (!sleep_until(run.resume_at)) {
    return engine::Error{"interrupted by shutdown"};
  }
  run.resume_at = 0;
  if (secs > timeout) {
    return engine::Error{"step '" + job.workflow->def.steps[step_index].id + "' timed out after " +
                         std::to_string(timeout) + "s"};
  }
  return StepOutput{{"slept_secs", OutputValue::integer(int64_t(secs))}};
}

void Workflows::publish_run_event(const RunJob& job, uint16_t kind, std::vector<engine::Tag> extra, std::string content,
                                  const std::optional<engine::Pubkey>& actor) {
  const std::string& channel = job.workflow->record.channel_id;
  if (channel.empty()) return;
  std::vector<engine::Tag> tags = {{"h", channel}, workflow_tag(job.workflow->record), {"run", job.run.id}, kWorkflowTag};
  for (engine::Tag& t : extra) tags.push_back(std::move(t));
  auto event = std::make_shared<const engine::Event>(relay_event(kind, std::move(tags), std::move(content)));
  StoreEvent work{.event = std::move(event), .channel = channel, .proxy = true};
  if (!writer_.submit({std::move(work), kUnanswered, actor.value_or(key_.pubkey)})) log_warn("workflow event dropped: writer queue full", {{"kind", std::to_string(kind)}});
}

}  // namespace buzz::server
