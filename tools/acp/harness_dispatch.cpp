// Turns to agents and what became of them (harness_loop.h, §A.5): a ready
// channel goes to an idle agent (one that already has its session first), a
// turn's outcome completes, keeps (cancelled) or requeues its batch, a turn in
// flight past the deadline is stuck, and an idle agent takes the heartbeat.
// The 👀 and 💬 reactions follow the batch.
#include "tools/acp/harness_loop.h"

#include <algorithm>

#include "engine/clock.h"
#include "tools/acp/rest_client.h"

namespace buzz::acp::harness {

bool Loop::turn_in_flight(const std::string& channel) const {
  return std::any_of(slots_.begin(), slots_.end(),
                     [&](const Slot& s) { return s.state == Slot::State::kBusy && s.channel == channel; });
}

void Loop::reactions(const std::vector<TaggedEvent>& events, const char* emoji, bool add) {
  for (const TaggedEvent& t : events) {
    pool_->submit([id = t.event.id_hex(), emoji = std::string(emoji), add](RestClient& rest) {
      if (add) rest.add_reaction(id, emoji);
      else rest.remove_reaction(id, emoji);
    });
  }
}

void Loop::dispatch() {
  const auto now = Clock::now();
  for (;;) {
    std::optional<std::string> channel = queues_.next_ready(now);
    if (!channel) return;
    // Affinity first: an idle agent that already has a session for the channel.
    Slot* chosen = nullptr;
    for (Slot& s : slots_) {
      if (s.state != Slot::State::kIdle) continue;
      if (s.sessions.count(*channel)) {
        chosen = &s;
        break;
      }
      if (!chosen) chosen = &s;
    }
    if (!chosen) return;
    ChannelState& ch = channels_[*channel];
    SlotJob job;
    job.kind = SlotJob::Kind::kTurn;
    job.channel = ch.info;
    job.channel.id = *channel;
    job.events = queues_.take_batch(*channel, now);
    job.cancelled = std::move(ch.cancelled);
    ch.cancelled.clear();
    job.drop_sessions = std::move(chosen->drop_sessions);
    chosen->drop_sessions.clear();
    chosen->state = Slot::State::kBusy;
    chosen->channel = *channel;
    chosen->batch = job.events;
    chosen->batch.insert(chosen->batch.begin(), job.cancelled.begin(), job.cancelled.end());
    reactions(job.events, "💬", true);
    chosen->agent->run(std::move(job));
    if (cfg_.typing) send_typing_in(*channel);  // at once; the 3 s timer repeats it for every busy channel
  }
}

void Loop::on_report(int index, SlotReport r) {
  Slot& s = slots_[size_t(index)];
  s.sessions = r.session_channels;
  if (r.kind == SlotJob::Kind::kSpawn) return on_spawn_report(index, r);
  const bool heartbeat = r.kind == SlotJob::Kind::kHeartbeat;
  if (heartbeat) heartbeat_running_ = false;
  const std::string channel = s.channel;
  std::vector<TaggedEvent> batch = std::move(s.batch);
  s.batch.clear();
  s.channel.clear();
  if (s.stuck) {  // the channel was freed long ago and may have a new turn: leave its queue alone
    s.stuck = false;
    log("the stuck turn in " + channel + " ended: " + ending_name(r.ending));
    reactions(batch, "💬", false);
  } else if (!heartbeat) {
    ChannelState& ch = channels_[channel];
    const bool removed = ch.removed;
    if (r.ending == Ending::kOk) {
      queues_.finish(channel, true);
      reactions(batch, "👀", false);
      reactions(batch, "💬", false);
    } else if (r.ending == Ending::kCancelled) {
      queues_.finish(channel, true);
      if (!removed) ch.cancelled = batch;  // merged into the channel's next prompt
      reactions(batch, "💬", false);
    } else {
      log("turn in " + channel + " failed: " + ending_name(r.ending) + (r.detail.empty() ? "" : ": " + r.detail));
      reactions(batch, "💬", false);
      if (removed || cfg_.dedup == Dedup::kDrop) {
        queues_.finish(channel, false);
        reactions(batch, "👀", false);
      } else if (!queues_.requeue(channel, batch, Clock::now())) {
        reactions(batch, "👀", false);
      }
    }
  }
  if (needs_respawn(r.ending)) {
    respawn(index);
  } else {
    if (r.ending == Ending::kOk) s.consecutive_crashes = 0;
    s.state = Slot::State::kIdle;
  }
  dispatch();
}

// §A.5.1: a batch in flight for max turn + 100 s is stuck. Its agent is
// cancelled and its channel served again; the turn's late report is ignored.
void Loop::on_stuck() {
  for (Slot& s : slots_) {
    if (s.state != Slot::State::kBusy || s.stuck || s.channel.empty() || queues_.in_flight(s.channel)) continue;
    log("warning: the turn in " + s.channel + " is stuck (in flight for over " +
        std::to_string(cfg_.max_turn_duration_s + 100) + " s); cleared");
    s.stuck = true;
    s.agent->cancel();
  }
  dispatch();
}

void Loop::heartbeat_tick() {
  next_heartbeat_ = Clock::now() + seconds(cfg_.heartbeat_interval_s);
  if (queues_.any_ready(Clock::now())) return dispatch();
  if (heartbeat_running_) return;
  for (Slot& s : slots_) {
    if (s.state != Slot::State::kIdle) continue;
    SlotJob job;
    job.kind = SlotJob::Kind::kHeartbeat;
    job.heartbeat_text = cfg_.heartbeat_prompt.value_or(heartbeat_prompt(engine::unix_now()));
    job.drop_sessions = std::move(s.drop_sessions);
    s.drop_sessions.clear();
    s.state = Slot::State::kBusy;
    heartbeat_running_ = true;
    s.agent->run(std::move(job));
    return;
  }
}

}  // namespace buzz::acp::harness
