// The protocol phases of a connection, fed by Loop::on_recv: received bytes are
// cut into HTTP requests (the head shown to the service before the body is
// read), the upgrade, then WebSocket frames reassembled into whole messages for
// Service::on_message. Nothing here touches the ring; answers go through the
// queue in loop_send.cpp.
#include "net/loop.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace buzz::net {
namespace {

// Makes room for `add` more bytes in s, doubling as std::string would but,
// while they are all part of what is being read (`want` bytes, when known;
// SIZE_MAX when not), never past it: a message that stalls part-way holds
// about what its sender sent, not twice the limit.
void make_room(std::string& s, size_t add, size_t want) {
  const size_t need = s.size() + add;
  if (need <= s.capacity()) return;
  const size_t doubled = 2 * s.capacity();
  s.reserve(std::max(need, need > want ? doubled : std::min(doubled, want)));
}

}  // namespace

bool Loop::consume(Connection& c, char* data, size_t len) {
  // Fast path: with nothing buffered, whole requests and frames are handled
  // straight from the ring buffer; only a partial tail is copied.
  char* buf = data;
  size_t n = len;
  if (!c.inbuf_.empty()) {
    if (len) {
      ws::FrameHeader h;  // the frame being read, once its header is in
      const bool framed = c.phase_ == Connection::Phase::kWebSocket &&
                          ws::parse_header(reinterpret_cast<const uint8_t*>(c.inbuf_.data()), c.inbuf_.size(), &h) ==
                              ws::HeaderStatus::kOk;
      make_room(c.inbuf_, len, framed ? size_t(h.header_len + h.payload_len) : SIZE_MAX);
      c.inbuf_.append(data, len);
    }
    buf = c.inbuf_.data();
    n = c.inbuf_.size();
  }
  bool ok = true;
  size_t used = 0;
  // A paused connection's unhandled bytes wait in inbuf_ for resume_reading.
  while (ok && used < n && !c.read_paused_) {
    size_t step = 0;
    if (c.phase_ == Connection::Phase::kHttp) {
      step = consume_http(c, std::string_view(buf + used, n - used));
    } else if (c.phase_ == Connection::Phase::kWebSocket) {
      step = consume_frames(c, buf + used, n - used, &ok);
    } else {
      step = n - used;  // closing: whatever else arrives is ignored
      if (c.linger_) c.closing_ticks_ = 0;  // but a refused body still arriving is progress
    }
    if (step == 0) break;
    used += step;
  }
  if (!ok) return false;
  // A client pipelining behind a deferred answer may buffer one more request, no more.
  if (c.awaiting_response_ && n - used > kMaxHeaderBytes + options_.max_http_body) return false;
  if (buf == data) {
    if (used < len) c.inbuf_.assign(data + used, len - used);
  } else {
    c.inbuf_.erase(0, used);
    if (c.inbuf_.empty()) std::string().swap(c.inbuf_);  // an idle connection keeps no buffer
  }
  return true;
}

size_t Loop::consume_http(Connection& c, std::string_view data) {
  if (c.phase_ != Connection::Phase::kHttp || c.awaiting_response_) return 0;
  if (c.request_ && c.request_->spool) return consume_spooled(c, data);
  // The head is parsed, and shown to the service, once per request; while the
  // body is still arriving both live in c.request_, and data keeps starting at
  // the head (nothing is consumed until the request is whole).
  Connection::PendingRequest fresh;
  Connection::PendingRequest& pending = c.request_ ? *c.request_ : fresh;
  HttpRequest& req = pending.request;
  if (!c.request_) {
    ParseOutcome head = parse_head(data, &req);
    if (head.state == ParseState::kNeedMore) return 0;
    if (head.state == ParseState::kError) {
      send_response(c, HttpResponse::json(head.error_status, "{\"error\":\"" + head.error + "\"}"), false);
      close(c);
      return data.size();
    }
    req.peer = c.peer_;
    if (c.probe_only_) {
      // Let in past the connection cap: a probe is answered, and nothing else.
      const auto& probes = options_.probe_paths;
      if (req.wants_websocket() || std::find(probes.begin(), probes.end(), req.path) == probes.end()) {
        refuse_past_cap(c);
        return data.size();
      }
      req.keep_alive = false;
    }
    pending.head_bytes = head.consumed;
    pending.max_body = options_.max_http_body;
    if (!req.wants_websocket()) {
      HeadDecision decision = service_.on_request_head(*this, req);
      if (decision.refusal) {
        send_response(c, std::move(*decision.refusal), false);
        close(c);
        return data.size();
      }
      if (decision.spool) return start_spool(c, std::move(fresh), std::move(*decision.spool), data.size());
      pending.max_body = decision.max_body.value_or(pending.max_body);
    }
  }
  ParseOutcome p = parse_body(data, pending.head_bytes, pending.max_body, &req);
  if (p.state == ParseState::kError) {
    c.request_.reset();
    send_response(c, HttpResponse::json(p.error_status, "{\"error\":\"" + p.error + "\"}"), false);
    close(c);
    return data.size();
  }
  if (p.state == ParseState::kNeedMore) {
    if (!c.request_) {
      if (req.expects_continue()) queue_raw(c, "HTTP/1.1 100 Continue\r\n\r\n");
      c.request_ = std::make_unique<Connection::PendingRequest>(std::move(fresh));
    }
    return 0;
  }
  HttpRequest whole = std::move(req);
  c.request_.reset();
  c.silent_intervals_ = 0;  // a whole request: the connection is in use
  c.body_bytes_at_visit_ = 0;
  if (!whole.wants_websocket()) {
    answer_http(c, whole);
    return p.consumed;
  }
  HttpResponse refusal;
  std::string_view key = whole.header("sec-websocket-key");
  if (whole.header("sec-websocket-version") != "13" || key.empty()) {
    refusal = HttpResponse::json(400, R"({"error":"WebSocket upgrade needs Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key"})");
    refusal.headers.emplace_back("Sec-WebSocket-Version", "13");
  } else if (service_.on_upgrade(*this, whole, &refusal)) {
    queue_raw(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Accept: " + ws::accept_key(key) + "\r\n\r\n");
    c.phase_ = Connection::Phase::kWebSocket;
    c.opened_ = true;
    ping(c);  // the heartbeat's first tick is the upgrade itself (docs/reference/protocol.md §5.3)
    service_.on_open(*this, c, whole);
    return p.consumed;
  }
  send_response(c, std::move(refusal), false);
  close(c);
  return data.size();
}

void Loop::answer_http(Connection& c, const HttpRequest& whole) {
  bool head_only = whole.method == "HEAD";
  std::optional<HttpResponse> r = service_.on_http(*this, c, whole);
  if (!r) {
    c.awaiting_response_ = true;
    c.response_keep_alive_ = whole.keep_alive;
    c.response_head_only_ = head_only;
    return;
  }
  send_response(c, std::move(*r), whole.keep_alive, head_only);
  if (!whole.keep_alive) close(c);
}

size_t Loop::consume_frames(Connection& c, char* data, size_t len, bool* ok) {
  size_t used = 0;
  while (c.phase_ == Connection::Phase::kWebSocket && used < len && !c.read_paused_) {
    ws::FrameHeader h;
    auto* p = reinterpret_cast<uint8_t*>(data + used);
    ws::HeaderStatus st = ws::parse_header(p, len - used, &h);
    if (st == ws::HeaderStatus::kNeedMore) break;
    if (st == ws::HeaderStatus::kProtocolError || !h.masked) {
      close(c, 1002, "protocol error");
      return len;
    }
    // The frame cap is checked on the header, before any payload is buffered.
    const size_t cap = c.vouched_ ? options_.max_read_bytes : options_.max_message_bytes;
    if (h.payload_len > cap || c.message_.size() + h.payload_len > cap) {
      close(c, 1009, "message too big");
      return len;
    }
    if (len - used < h.header_len + h.payload_len) break;
    char* payload = data + used + h.header_len;
    ws::apply_mask(reinterpret_cast<uint8_t*>(payload), size_t(h.payload_len), h.mask);
    used += h.header_len + size_t(h.payload_len);
    if (!on_frame(c, h, payload)) {
      *ok = false;
      return used;
    }
  }
  if (c.phase_ == Connection::Phase::kClosing) return len;  // ignore anything after a close
  return used;
}

bool Loop::on_frame(Connection& c, const ws::FrameHeader& h, char* payload) {
  std::string_view body(payload, size_t(h.payload_len));
  switch (h.opcode) {
    case ws::Opcode::kPing:
      return pong(c, body);  // false: a dead writer, dropped
    case ws::Opcode::kPong: c.silent_intervals_ = 0; return true;
    case ws::Opcode::kClose:
      // Echo the peer's code (1002 for a malformed close), then close once the echo is written.
      close(c, ws::close_reply_code(body));
      return true;
    case ws::Opcode::kText:
    case ws::Opcode::kBinary:
      if (c.in_message_) {
        close(c, 1002, "new message before the previous one ended");
        return true;
      }
      if (!h.fin) {
        c.in_message_ = true;
        c.message_opcode_ = h.opcode;
        make_room(c.message_, body.size(), 0);
        c.message_.append(body);
        return true;
      }
      return deliver(c, h.opcode, body);
    case ws::Opcode::kContinuation: {
      if (!c.in_message_) {
        close(c, 1002, "continuation frame without a message");
        return true;
      }
      make_room(c.message_, body.size(), c.vouched_ ? options_.max_read_bytes : options_.max_message_bytes);
      c.message_.append(body);
      if (!h.fin) return true;
      c.in_message_ = false;
      std::string whole;
      whole.swap(c.message_);
      return deliver(c, c.message_opcode_, whole);
    }
  }
  return true;
}

bool Loop::deliver(Connection& c, ws::Opcode op, std::string_view payload) {
  LoopStats::bump(stats_.messages_in);
  if (op == ws::Opcode::kBinary) {
    service_.on_binary(*this, c, payload);
  } else {
    service_.on_message(*this, c, payload);
  }
  return true;
}

}  // namespace buzz::net
