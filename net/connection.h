// One client connection as its network loop holds it.
//
// A connection lives on the loop that accepted it, for life; other threads name
// it by ConnId (loop, slot, generation) and reach it only through Loop::post.
// An idle connection owns no buffers: receive data arrives in the loop's
// provided-buffer ring, and inbuf_/message_/pending_ are empty (no capacity).
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/http.h"
#include "net/tls.h"
#include "net/websocket.h"

namespace buzz::net {

struct BodySpool;

struct ConnId {
  uint16_t loop = 0;
  uint32_t slot = 0;
  uint32_t gen = 0;
  bool operator==(const ConnId&) const = default;
};

// The application's state for a connection (the server's Session).
struct ConnectionContext {
  virtual ~ConnectionContext() = default;
};

// One outgoing WebSocket frame (or raw HTTP bytes): `head` is owned by this
// frame, `shared` is a buffer many frames point at (a fanned-out event), `tail`
// closes the frame. Only head is required.
struct OutFrame {
  std::string head;
  std::shared_ptr<const std::string> shared;
  std::string tail;
  bool heartbeat = false;  // a Ping or Pong: counted against the control queue (Loop::queue_heartbeat)
  bool lossy = false;      // may be dropped, and is overtaken by every other frame (Loop::send_lossy)
  size_t size() const { return head.size() + (shared ? shared->size() : 0) + tail.size(); }
};

class Connection {
 public:
  ConnId id() const { return id_; }
  const std::string& peer() const { return peer_; }
  ConnectionContext* context() const { return context_.get(); }
  void set_context(std::unique_ptr<ConnectionContext> c) { context_ = std::move(c); }
  bool is_websocket() const { return phase_ == Phase::kWebSocket; }
  // Paused by the application (Loop::pause_reading); the loop's own pause for
  // a backlog of answers is not the application's to lift.
  bool reading_paused() const { return read_paused_ & kPausedByService; }

 private:
  friend class Loop;
  enum class Phase : uint8_t { kHttp, kWebSocket, kClosing, kDead };
  // Why no receive is armed: each reason is lifted on its own.
  static constexpr uint8_t kPausedByService = 1;  // Loop::pause_reading, until resume_reading
  static constexpr uint8_t kPausedByBacklog = 2;  // its own answers queued past the live limit (Loop::enqueue)
  static constexpr uint8_t kPausedBySpool = 4;    // its streamed body waits for the disk (body_spool.h)

  // A request whose head is parsed (and shown to the application) and whose
  // body is still arriving; the head is not parsed again as the body grows.
  struct PendingRequest {
    HttpRequest request;
    size_t head_bytes = 0;
    size_t max_body = 0;
    std::shared_ptr<BodySpool> spool;  // the body goes to a file as it arrives (HeadDecision::spool)
  };

  // The frames of one sendmsg in flight, kept alive until it completes.
  struct SendState {
    std::vector<OutFrame> frames;
    std::vector<iovec> iov;
    size_t first = 0;  // first iovec not yet fully written
    size_t bytes = 0;  // of frames, counted in queued_bytes_ until the send completes
    std::string cipher;  // TLS: the records written instead of the frames (Loop::flush_tls)
  };

  // A connection over TLS (net/tls.h): its session, and the frame being
  // encrypted when the last send's batch filled up (out of pending_, so no
  // frame is queued in front of its rest).
  struct TlsState {
    explicit TlsState(const TlsCertificate& cert) : session(cert) {}
    TlsSession session;
    OutFrame rest;
    size_t rest_done = 0;  // bytes of rest already encrypted
  };

  int fd_ = -1;
  bool fixed_file_ = false;  // fd_ is also the index of its entry in the ring's file table
  ConnId id_;
  Phase phase_ = Phase::kHttp;
  bool recv_armed_ = false;
  uint8_t read_paused_ = 0;       // kPausedBy* bits: no receive is armed while any is set
  bool sending_ = false;
  bool dirty_ = false;            // on the loop's list of connections to flush
  bool close_after_flush_ = false;
  bool opened_ = false;           // Service::on_open ran (so on_close must run)
  bool in_message_ = false;       // between the first and the last frame of a fragmented message
  bool awaiting_response_ = false;  // on_http deferred its answer; later requests wait
  bool response_keep_alive_ = true;
  bool response_head_only_ = false;
  bool linger_ = false;           // closing over HTTP: half-close, then read until the peer closes
  uint8_t silent_intervals_ = 0;    // ping intervals without a pong (WebSocket) or a whole request (HTTP)
  uint8_t full_strikes_ = 0;
  uint32_t turn_seen_ = 0;        // the loop turn of the last enqueue, and what was queued then:
  uint32_t pending_at_turn_ = 0;  // a burst within one turn is not a slow client (enqueue)
  uint8_t heartbeats_queued_ = 0;  // Pings and Pongs in pending_, at most kControlQueueSlots
  uint16_t lossy_queued_ = 0;      // lossy frames in pending_, behind every other frame
  uint8_t wheel_slot_ = 0;
  ws::Opcode message_opcode_ = ws::Opcode::kText;
  uint8_t closing_ticks_ = 0;        // seconds closing without a byte from the peer, at most kCloseGraceTicks + 1
  uint8_t closing_age_ = 0;          // seconds closing, at most kMaxCloseTicks + 1
  uint32_t body_bytes_at_visit_ = 0;  // what inbuf_ held at the last wheel visit, to see a body advance
  uint32_t addr_ = 0;             // the peer's IPv4 address, network order
  bool unvouched_ = false;        // counted in LoopOptions::addresses until Loop::vouch
  bool vouched_ = false;          // Loop::vouch ran: messages read up to LoopOptions::max_read_bytes
  bool probe_only_ = false;       // accepted past the connection cap: one probe request, then closed
  size_t queued_bytes_ = 0;       // bytes of pending_ and of the send in flight (OutFrame::size)
  size_t bytes_at_turn_ = 0;      // queued_bytes_ as the loop's turn began (enqueue)
  std::string inbuf_;    // a partial HTTP request or WebSocket frame
  std::unique_ptr<PendingRequest> request_;  // only while a request's body is arriving
  std::string message_;  // payload of a fragmented message so far
  std::vector<OutFrame> pending_;
  std::unique_ptr<SendState> send_;
  std::unique_ptr<ConnectionContext> context_;
  std::unique_ptr<TlsState> tls_;  // null = plaintext
  std::string peer_;
};

}  // namespace buzz::net
