// Agents restarted (harness_loop.h, §A.5.2): after a crash, a hang or a
// framing error an agent's slot waits 1 s × 2ⁿ⁻¹ (at most 30 s, ±20 %), or
// 300 s after 3 crashes within 60 s, then starts it again with no sessions.
#include "tools/acp/harness_loop.h"

#include <algorithm>

namespace buzz::acp::harness {

// A spawn's outcome: the agent is idle, or (at start-up) left empty, or
// (after a crash) tried again after the next backoff.
void Loop::on_spawn_report(int index, const SlotReport& r) {
  Slot& s = slots_[size_t(index)];
  if (r.started) {
    s.state = Slot::State::kIdle;
    if (s.consecutive_crashes) log("agent " + std::to_string(index) + " restarted");
    dispatch();
  } else if (s.state == Slot::State::kStarting) {
    log("agent " + std::to_string(index) + " failed to start: " + r.detail);
    s.state = Slot::State::kEmpty;
  } else {
    log("agent " + std::to_string(index) + " failed to restart: " + r.detail);
    respawn(index);
  }
}

void Loop::respawn(int index) {
  Slot& s = slots_[size_t(index)];
  const auto now = Clock::now();
  s.crashes.push_back(now);
  while (!s.crashes.empty() && now - s.crashes.front() > seconds(60)) s.crashes.pop_front();
  ++s.consecutive_crashes;
  Clock::duration delay;
  if (s.crashes.size() >= 3) {
    log("agent " + std::to_string(index) + " crashed 3 times within 60 s; waiting 300 s before trying it again");
    delay = seconds(300);
    s.crashes.clear();
  } else {
    delay = jittered(std::min<Clock::duration>(seconds(1) * (1 << std::min(s.consecutive_crashes - 1, 5)), seconds(30)));
  }
  s.state = Slot::State::kRespawning;
  s.sessions.clear();
  s.drop_sessions.clear();
  SlotJob job;
  job.delay = delay;
  s.agent->run(std::move(job));
}

}  // namespace buzz::acp::harness
