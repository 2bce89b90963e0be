// What the harness does with an event heard in a channel (harness_loop.h):
// the owner's commands (!shutdown, !cancel, !rotate), then the author gate of
// --respond-to (anyone, nobody, an allowlist, or the owner and its other
// agents, looked up over REST and cached), then the rule that matches, the
// channel's queue and, with --multiple interrupt, the running turn cancelled.
#include <algorithm>

#include "engine/kind_numbers.h"
#include "tools/acp/harness_loop.h"
#include "tools/acp/rest_client.h"

namespace buzz::acp::harness {
namespace {

constexpr auto kOwnerTtl = seconds(60);
constexpr auto kSiblingHitTtl = seconds(300), kSiblingMissTtl = seconds(60);
constexpr size_t kSiblingCacheSize = 256;

}  // namespace

void Loop::lookup_owner() {
  if (owner_lookup_running_ || cfg_.agent_owner) return;  // --agent-owner: nothing to look up
  owner_lookup_running_ = true;
  owner_checked_ = Clock::now();
  pool_->submit([this](RestClient& rest) {
    std::optional<std::string> owner;
    bool ok = true;
    try {
      owner = rest.agent_owner(self_hex_);
    } catch (const std::exception& e) {
      ok = false;
      log(std::string("owner lookup failed: ") + e.what());
    }
    post([this, owner, ok] {
      owner_lookup_running_ = false;
      if (!ok) return;
      if (owner && owner != owner_) log("owner: " + *owner);
      owner_ = owner;
      if (!owner_ && cfg_.respond_to == RespondTo::kOwnerOnly) {
        log("warning: no owner known and --respond-to=owner-only: events are dropped until the owner resolves");
      }
    });
  });
}

bool Loop::author_allowed(const engine::Event& e, bool* pending) {
  *pending = false;
  const std::string author = e.pubkey_hex();
  switch (cfg_.respond_to) {
    case RespondTo::kAnyone: return true;
    case RespondTo::kNobody: return false;
    case RespondTo::kAllowlist: return (owner_ && author == *owner_) || cfg_.respond_to_allowlist.count(author) > 0;
    case RespondTo::kOwnerOnly: break;
  }
  if (!owner_) {
    if (Clock::now() - owner_checked_ > kOwnerTtl) lookup_owner();
    return false;
  }
  if (author == *owner_) return true;
  // A sibling: another agent of our owner.
  if (auto it = siblings_.find(author); it != siblings_.end() && it->second.expires > Clock::now()) return it->second.sibling;
  *pending = true;
  return false;
}

void Loop::on_channel_event(const std::string& channel, engine::Event e) {
  auto it = channels_.find(channel);
  if (it == channels_.end() || it->second.removed) return;
  ChannelState& ch = it->second;
  ch.last_seen = std::max(ch.last_seen, e.created_at);
  const std::string author = e.pubkey_hex();
  if (cfg_.ignore_self && author == self_hex_) return;
  // Owner commands: !shutdown and !cancel from the owner, mentioning us.
  if (e.kind == kind::kStreamMessage && owner_ && author == *owner_) {
    const bool mentions_us = std::any_of(e.tags.begin(), e.tags.end(), [&](const engine::Tag& t) {
      return t.size() >= 2 && t[0] == "p" && t[1] == self_hex_;
    });
    std::string command = e.content;
    command.erase(0, command.find_first_not_of(" \t\r\n"));
    command.erase(command.find_last_not_of(" \t\r\n") + 1);
    if (mentions_us && command == "!shutdown") {
      log("!shutdown from the owner");
      shutdown_ = true;
      return;
    }
    if (mentions_us && (command == "!cancel" || command == "!rotate")) {
      bool found = false;
      for (Slot& s : slots_) {
        if (s.state == Slot::State::kBusy && s.channel == channel) {
          s.agent->cancel();
          found = true;
        }
      }
      if (command == "!rotate") {  // the channel's next turn starts a new session
        forget_sessions(channel);
        log("!rotate in " + channel + ": its sessions are dropped");
      } else if (!found) {
        log("warning: !cancel in " + channel + " but no turn is running there");
      }
      return;
    }
  }
  bool pending = false;
  if (author_allowed(e, &pending)) return after_author_gate(channel, std::move(e));
  if (!pending) return;
  auto& waiting = waiting_on_sibling_[author];
  waiting.emplace_back(channel, std::move(e));
  if (waiting.size() > 1) return;  // a lookup for this author is running
  pool_->submit([this, author](RestClient& rest) {
    try {
      auto their_owner = rest.agent_owner(author);
      post([this, author, their_owner] {
        const bool is = their_owner && owner_ && *their_owner == *owner_;
        if (siblings_.size() >= kSiblingCacheSize) siblings_.clear();
        siblings_[author] = {is, Clock::now() + (is ? kSiblingHitTtl : kSiblingMissTtl)};
        auto events = std::move(waiting_on_sibling_[author]);
        waiting_on_sibling_.erase(author);
        if (!is) return;
        for (auto& [ch, ev] : events) after_author_gate(ch, std::move(ev));
      });
    } catch (const std::exception&) {
      post([this, author] { waiting_on_sibling_.erase(author); });
    }
  });
}

void Loop::after_author_gate(const std::string& channel, engine::Event e) {
  auto it = channels_.find(channel);
  if (it == channels_.end() || it->second.removed) return;
  const Rule* rule = match_rule(rules_, e, channel, self_hex_);
  if (!rule) return;
  const bool busy = turn_in_flight(channel);
  if (cfg_.dedup == Dedup::kDrop && busy) return;
  const std::string author = e.pubkey_hex();
  TaggedEvent tagged{std::move(e), rule->prompt_tag};
  reactions({tagged}, "👀", true);
  queues_.push(channel, std::move(tagged));
  if (busy && (cfg_.multiple == MultipleEvents::kInterrupt ||
               (cfg_.multiple == MultipleEvents::kOwnerInterrupt && owner_ && author == *owner_))) {
    for (Slot& s : slots_) {
      if (s.state == Slot::State::kBusy && s.channel == channel) s.agent->cancel();
    }
  }
  dispatch();
}

}  // namespace buzz::acp::harness
