// The outbound queue of a connection: every frame and HTTP response a loop
// sends a connection is built and queued here, under the limits of LoopOptions
// (the live send_queue_limit, the answer_allowance, the heartbeats' own 8
// slots), the slow-consumer strikes, and the pause of a connection whose own
// answers pile up. Nothing here writes to the socket: Loop::run
// flushes each connection queued to once per batch of completions (flush and
// on_send, in loop.cpp).
#include "net/loop.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace buzz::net {
namespace {

constexpr uint8_t kControlQueueSlots = 8;  // Pings and Pongs waiting to be written (docs/reference/protocol.md §5.3)
// How old another loop's measure of its slowest reader may be for this loop to
// shed by it (each loop measures once a tick).
constexpr int64_t kSendMemoryFreshMs = 1500;

// A frame holding `head_bytes` after its WebSocket header; `payload_len` counts
// every payload byte, including any shared body and tail added later.
OutFrame make_frame(ws::Opcode op, size_t payload_len, std::string_view head_bytes = {}) {
  OutFrame f;
  f.head.resize(ws::kMaxHeaderBytes + head_bytes.size());
  size_t header = ws::encode_header(reinterpret_cast<uint8_t*>(f.head.data()), op, payload_len);
  if (!head_bytes.empty()) std::memcpy(f.head.data() + header, head_bytes.data(), head_bytes.size());
  f.head.resize(header + head_bytes.size());
  return f;
}

}  // namespace

void Loop::send_response(Connection& c, HttpResponse&& r, bool keep_alive, bool head_only) {
  OutFrame f;
  f.head = serialize_response_head(r, keep_alive);
  // A large body (a media file) goes out as it is, not copied behind the head.
  if (!head_only && !r.body.empty()) f.shared = std::make_shared<const std::string>(std::move(r.body));
  enqueue(c, std::move(f), Traffic::kControl);
}

bool Loop::enqueue(Connection& c, OutFrame&& f, Traffic traffic) {
  const bool control = traffic == Traffic::kControl;
  if (c.phase_ == Connection::Phase::kDead || (c.phase_ == Connection::Phase::kClosing && !control)) return false;
  // Nothing queued in one turn of the loop can drain before the turn ends, and
  // one turn may fan out a whole batch (another node's events come up to 4,096
  // at once). So live traffic counts as slow when the queue was already at the
  // limit as the turn began, or when the burst passes the answers' allowance too.
  if (c.turn_seen_ != turn_) {
    c.turn_seen_ = turn_;
    c.pending_at_turn_ = uint32_t(c.pending_.size());
    c.bytes_at_turn_ = c.queued_bytes_;
  }
  const size_t limit = options_.send_queue_limit + (traffic == Traffic::kLive ? 0 : options_.answer_allowance);
  // In bytes the same rules: live by what the turn began with, a replay by what is queued now.
  const size_t bytes_limit = options_.send_queue_bytes;
  const bool full = traffic == Traffic::kLive
                        ? c.pending_at_turn_ >= limit || c.pending_.size() >= limit + options_.answer_allowance ||
                              c.bytes_at_turn_ >= bytes_limit || c.queued_bytes_ >= 2 * bytes_limit
                        : c.pending_.size() >= limit || c.queued_bytes_ >= bytes_limit;
  // Answers are never dropped: the pause below stops reading new requests, so
  // they are bounded by what was read before it, and what the store writer
  // held (its own congestion pause bounds that). Under load the writer can
  // answer thousands of EVENTs at once, and counting them as a slow consumer
  // lost the OKs of events already stored.
  if (!control && traffic != Traffic::kAnswer && full) {
    if (traffic == Traffic::kHistory) return false;  // the replay stops; the client is not at fault yet
    LoopStats::bump(stats_.dropped_slow);
    // A client that cannot keep up is cut off rather than buffered without bound.
    if (++c.full_strikes_ >= options_.slow_client_strikes) {
      LoopStats::bump(stats_.slow_disconnects);
      close(c, 1008, "slow consumer");
    }
    return false;
  }
  if (!control) c.full_strikes_ = 0;
  queue_bytes(c, f.size());
  if (c.lossy_queued_) {
    // Lossy frames wait behind everything else: this one goes before the first of them.
    auto first_lossy = std::find_if(c.pending_.begin(), c.pending_.end(), [](const OutFrame& o) { return o.lossy; });
    c.pending_.insert(first_lossy, std::move(f));
  } else {
    c.pending_.push_back(std::move(f));
  }
  // Answers to its own requests past the live limit: read no more requests
  // until they drain (on_send), so a client that sends faster than it reads is
  // slowed by TCP instead of closed as slow. Live fan-out cannot be slowed this
  // way, so it keeps the strikes above.
  if (traffic == Traffic::kAnswer &&
      (c.pending_.size() >= options_.send_queue_limit || c.queued_bytes_ >= options_.send_queue_bytes) &&
      !(c.read_paused_ & Connection::kPausedByBacklog)) {
    LoopStats::bump(stats_.answer_pauses);
    pause(c, Connection::kPausedByBacklog);
  }
  LoopStats::bump(stats_.frames_out);
  if (!c.dirty_ && !c.sending_) {
    c.dirty_ = true;
    dirty_.push_back(&c);
  }
  return true;
}

void Loop::ping(Connection& c) {
  ++c.silent_intervals_;
  if (!queue_heartbeat(c, make_frame(ws::Opcode::kPing, 0))) close(c, 1001, "not reading");
}

bool Loop::pong(Connection& c, std::string_view payload) {
  return queue_heartbeat(c, make_frame(ws::Opcode::kPong, payload.size(), payload));
}

bool Loop::queue_heartbeat(Connection& c, OutFrame&& f) {
  if (c.heartbeats_queued_ >= kControlQueueSlots) return false;
  f.heartbeat = true;
  if (!enqueue(c, std::move(f), Traffic::kControl)) return true;  // closing or dead: nothing more to send
  ++c.heartbeats_queued_;
  return true;
}

void Loop::queue_raw(Connection& c, std::string bytes) {
  OutFrame f;
  f.head = std::move(bytes);
  enqueue(c, std::move(f), Traffic::kControl);
}

bool Loop::send_lossy(Connection& c, std::string_view prefix, std::shared_ptr<const std::string> shared,
                      size_t max_waiting) {
  // Only frames held behind a write the kernel has not finished count as
  // waiting: with none in flight, everything queued goes out at this turn's flush.
  if (c.phase_ != Connection::Phase::kWebSocket || (c.sending_ && c.lossy_queued_ >= max_waiting)) {
    LoopStats::bump(stats_.dropped_slow);
    return false;
  }
  OutFrame f = make_frame(ws::Opcode::kBinary, prefix.size() + shared->size(), prefix);
  f.shared = std::move(shared);
  f.lossy = true;
  queue_bytes(c, f.size());
  c.pending_.push_back(std::move(f));
  ++c.lossy_queued_;
  LoopStats::bump(stats_.frames_out);
  if (!c.dirty_ && !c.sending_) {
    c.dirty_ = true;
    dirty_.push_back(&c);
  }
  return true;
}

bool Loop::send_text(Connection& c, std::string_view payload) {
  return enqueue(c, make_frame(ws::Opcode::kText, payload.size(), payload), Traffic::kAnswer);
}

bool Loop::send_history(Connection& c, std::string_view payload) {
  return enqueue(c, make_frame(ws::Opcode::kText, payload.size(), payload), Traffic::kHistory);
}

bool Loop::send_shared(Connection& c, std::string_view prefix, std::shared_ptr<const std::string> shared,
                       std::string_view suffix) {
  OutFrame f = make_frame(ws::Opcode::kText, prefix.size() + shared->size() + suffix.size(), prefix);
  f.shared = std::move(shared);
  f.tail.assign(suffix);
  return enqueue(c, std::move(f), Traffic::kLive);
}

void Loop::respond(ConnId id, const HttpResponse& response) {
  Connection* c = find(id);
  if (!c || !c->awaiting_response_) return;
  c->awaiting_response_ = false;
  send_response(*c, HttpResponse(response), c->response_keep_alive_, c->response_head_only_);
  if (!c->response_keep_alive_) return close(*c);
  // A pipelined request that arrived meanwhile waits in inbuf_.
  if (!c->inbuf_.empty() && !consume(*c, nullptr, 0)) close(*c);
}

void Loop::close(Connection& c, uint16_t code, std::string_view reason) {
  if (c.phase_ == Connection::Phase::kDead || c.phase_ == Connection::Phase::kClosing) return;
  if (c.phase_ == Connection::Phase::kWebSocket) {
    // Nothing may follow the close frame, and lossy frames are not worth waiting for.
    if (c.lossy_queued_) {
      std::erase_if(c.pending_, [&](const OutFrame& o) {
        if (o.lossy) unqueue_bytes(c, o.size());
        return o.lossy;
      });
    }
    c.lossy_queued_ = 0;
    std::string payload = ws::close_payload(code, reason);
    enqueue(c, make_frame(ws::Opcode::kClose, payload.size(), payload), Traffic::kControl);
  }
  // A client may still be sending a body we refused: closing outright would
  // reset the connection and could destroy the answer before it is read.
  c.linger_ = c.phase_ == Connection::Phase::kHttp;
  c.phase_ = Connection::Phase::kClosing;
  c.close_after_flush_ = true;
  closing_.push_back(c.id_);
  if (!c.sending_ && !c.dirty_) {
    c.dirty_ = true;
    dirty_.push_back(&c);
  }
}

void Loop::bound_send_memory() {
  SendMemory* m = options_.send_memory;
  if (!m || m->max <= 0) return;
  SendMemory::PerLoop& mine = m->per_loop[index_];
  mine.queued.store(int64_t(queued_bytes_), std::memory_order_relaxed);
  int64_t total = m->total();
  if (total <= m->max / 2) return;  // no pressure: nobody needs to know our largest
  // Under pressure each loop says how far behind its slowest reader is, so
  // that past the bound the relay closes its slowest readers first, in one
  // order across loops.
  std::vector<Connection*> behind;
  for (auto& slot : slots_) {
    const bool open = slot->phase_ == Connection::Phase::kWebSocket || slot->phase_ == Connection::Phase::kHttp;
    if (slot->queued_bytes_ && open) behind.push_back(slot.get());
  }
  std::sort(behind.begin(), behind.end(),
            [](const Connection* a, const Connection* b) { return a->queued_bytes_ > b->queued_bytes_; });
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now().time_since_epoch()).count();
  mine.largest.store(behind.empty() ? 0 : int64_t(behind.front()->queued_bytes_), std::memory_order_relaxed);
  mine.at_ms.store(now_ms, std::memory_order_relaxed);
  if (total <= m->max) return;
  // Another loop's slowest, if every loop has measured within the last tick
  // or so; otherwise wait for them rather than shed out of order.
  int64_t others = 0;
  for (size_t i = 0; i < m->count; ++i) {
    if (i == index_) continue;
    const SendMemory::PerLoop& l = m->per_loop[i];
    if (l.queued.load(std::memory_order_relaxed) == 0) continue;
    if (now_ms - l.at_ms.load(std::memory_order_relaxed) > kSendMemoryFreshMs) return;
    others = std::max(others, l.largest.load(std::memory_order_relaxed));
  }
  for (Connection* c : behind) {
    if (total <= m->max || int64_t(c->queued_bytes_) < others) break;
    LoopStats::bump(stats_.memory_disconnects);
    const size_t before = c->queued_bytes_;
    if (c->phase_ == Connection::Phase::kHttp) {
      // A response (a media file is sent from memory) cannot be cut short
      // with a reason: the connection goes, and its send with it.
      destroy(*c);
    } else {
      // What waits behind the send in flight is freed now; the close frame follows it.
      for (const OutFrame& f : c->pending_) unqueue_bytes(*c, f.size());
      c->pending_.clear();
      c->heartbeats_queued_ = 0;
      c->lossy_queued_ = 0;
      close(*c, 1008, "slow consumer: the relay's send memory is full");
    }
    total -= int64_t(before) - int64_t(c->queued_bytes_);
  }
  mine.queued.store(int64_t(queued_bytes_), std::memory_order_relaxed);
}

}  // namespace buzz::net
