// Typing indicators (harness_loop.h): a kind-20002 event in each channel an
// agent is working in, when its turn starts and every 3 s while it runs.
#include "engine/clock.h"
#include "engine/kind_numbers.h"
#include "engine/signature.h"
#include "tools/acp/harness_loop.h"

namespace buzz::acp::harness {

void Loop::send_typing() {
  next_typing_ = Clock::now() + kTypingInterval;
  std::set<std::string> busy;
  for (const Slot& s : slots_) {
    if (s.state == Slot::State::kBusy && !s.channel.empty()) busy.insert(s.channel);
  }
  for (const std::string& channel : busy) send_typing_in(channel);
}

void Loop::send_typing_in(const std::string& channel) {
  send("[\"EVENT\"," + engine::signed_event(cfg_.key, kind::kTyping, engine::unix_now(), {{"h", channel}}).raw + "]");
}

}  // namespace buzz::acp::harness
