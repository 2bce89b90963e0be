// The audio path (docs/reference/huddle.md §4.3, §7): one frame in, `[index][frame]` built
// once and shared by every other peer's send queue. Peers on this loop are
// queued at once; the peers on each other loop in one posted task, the way
// the relay's live fan-out crosses loops. A peer whose audio queue is full
// loses that frame and nobody else waits for it (Loop::send_lossy).
#include <algorithm>

#include "server/huddle/peer.h"

namespace buzz::server::huddle {

void Huddle::forward_audio(net::Loop& loop, Peer& peer, std::string_view frame) {
  std::array<net::ConnId, kMaxPeers> to;
  const size_t n = peer.room->others(peer.conn, to);
  if (n == 0) return;
  auto out = std::make_shared<std::string>();
  out->reserve(1 + frame.size());
  out->push_back(char(peer.index));
  out->append(frame);
  send_to(loop, std::span<net::ConnId>(to.data(), n), std::move(out), Send::kAudio);
}

void Huddle::send_here(net::Loop& loop, net::ConnId to, const std::shared_ptr<const std::string>& payload, Send how) {
  net::Connection* c = loop.find(to);
  if (!c || !c->is_websocket()) return;
  if (how == Send::kControl) {
    loop.send_text(*c, *payload);
  } else if (loop.send_lossy(*c, {}, payload, kAudioQueueFrames)) {
    stats_.frames_forwarded.fetch_add(1, std::memory_order_relaxed);
  } else {
    stats_.frames_lost_slow.fetch_add(1, std::memory_order_relaxed);
  }
}

void Huddle::send_to(net::Loop& here, std::span<net::ConnId> to, std::shared_ptr<const std::string> payload,
                     Send how) {
  // Grouped by loop (a room has at most 25 peers): this loop's are queued
  // now, each other loop's in one posted task.
  std::sort(to.begin(), to.end(), [](const net::ConnId& a, const net::ConnId& b) { return a.loop < b.loop; });
  for (size_t first = 0, end = 0; first < to.size(); first = end) {
    const uint16_t l = to[first].loop;
    for (end = first; end < to.size() && to[end].loop == l; ++end) {
    }
    if (l == here.index()) {
      for (size_t i = first; i < end; ++i) send_here(here, to[i], payload, how);
    } else if (l < loops_.size()) {
      net::Loop* loop = loops_[l];
      loop->post([this, loop, theirs = std::vector<net::ConnId>(to.begin() + long(first), to.begin() + long(end)),
                  payload, how] {
        for (net::ConnId id : theirs) send_here(*loop, id, payload, how);
      });
    }
  }
}

}  // namespace buzz::server::huddle
