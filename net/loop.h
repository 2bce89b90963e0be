// Loop: one io_uring event loop, one per core (docs/threads.md).
//
// Each loop has its own ring, its own SO_REUSEPORT listener, its own provided
// buffer ring for receives and its own connection table. Everything here runs
// on the loop's thread except post(), stop() and the constructor.
// Its member functions live in four files: loop.cpp (the ring and every
// completion), loop_http_ws.cpp (received bytes to HTTP requests and WebSocket
// messages), loop_send.cpp (the outbound queue and its limits) and
// loop_tls.cpp (what TLS changes on both ways, when LoopOptions::tls is set).
#pragma once

#include <liburing.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net/address_counts.h"
#include "net/body_spool.h"
#include "net/connection.h"
#include "net/send_memory.h"
#include "net/service.h"

namespace buzz::net {

struct LoopOptions {
  std::string host = "0.0.0.0";
  uint16_t port = 3000;
  // A bigger WebSocket frame or message closes with 1009, unless the
  // connection is vouched for (Loop::vouch): its messages are read up to
  // max_read_bytes and handed up, for the application to refuse in words.
  // Either way nothing is buffered before the bytes arrive (docs/limits.md).
  size_t max_message_bytes = 131072;
  size_t max_read_bytes = 131072;
  size_t max_http_body = 1 << 20;   // unless Service::on_request_head allows a request more
  size_t send_queue_limit = 1000;    // frames queued per connection before it counts as slow
  // Bytes queued per connection (frames in flight included): live events past
  // it count as refused (the strikes below), a REQ's replay ends there without
  // EOSE, and answers pause reading as send_queue_limit does.
  size_t send_queue_bytes = 16 << 20;
  // Frames beyond send_queue_limit that answers to the client's own requests
  // may queue: one REQ's whole history (10 filters × 500 events) and its
  // EOSE. Nothing drains the queue while a REQ replays, so without this a
  // legal REQ would count its own history against the client.
  size_t answer_allowance = 5001;
  int slow_client_strikes = 3;       // consecutive full-queue sends before disconnecting
  int ping_interval_secs = 30;
  int missed_pongs_limit = 2;        // closed on the tick after this many unanswered pings (docs/reference/protocol.md §5.3)
  int http_idle_intervals = 2;       // an HTTP connection completing no request for this long is closed
  std::atomic<int64_t>* connection_count = nullptr;  // shared by all loops
  int64_t max_connections = 10000;
  // Past max_connections, this many more are accepted for probe_paths only
  // (GET /health and the like): each answers one such request, or 503, and
  // closes, within kProbeTicks seconds. So a full relay still says it is alive.
  int64_t probe_reserve = 32;
  std::vector<std::string> probe_paths;
  // Connections per address not yet vouched for (Loop::vouch), shared by all
  // loops; null = not counted.
  AddressCounts* addresses = nullptr;
  // The relay-wide bound on queued bytes, shared by all loops; null = none.
  SendMemory* send_memory = nullptr;
  // Serve TLS (wss://, https://) with this certificate; null = plaintext.
  const TlsCertificate* tls = nullptr;
};

// Counted by the loop's own thread, read by any (GET /metrics).
struct LoopStats {
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> refused{0};           // at the connection cap
  std::atomic<uint64_t> messages_in{0};       // WebSocket messages handed to the service
  std::atomic<uint64_t> frames_out{0};
  std::atomic<uint64_t> dropped_slow{0};      // frames a full send queue refused
  std::atomic<uint64_t> slow_disconnects{0};  // connections closed for it (slow_client_strikes)
  std::atomic<uint64_t> answer_pauses{0};     // connections not read from until their own answers drained
  std::atomic<uint64_t> refused_address{0};   // at the per-address cap of connections not vouched for (HTTP 429)
  std::atomic<uint64_t> probes_past_cap{0};   // accepted past the connection cap for a probe
  std::atomic<uint64_t> memory_disconnects{0};  // closed as the slowest readers past SendMemory::max
  std::atomic<uint64_t> slow_bodies{0};       // streamed bodies refused under their minimum rate (HTTP 408)

  // One writer: a plain load and store, without a locked instruction.
  static void bump(std::atomic<uint64_t>& n) { n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
};

class Loop {
 public:
  // Binds the listener; throws std::runtime_error (start-up only) if it cannot.
  Loop(uint16_t index, const LoopOptions& options, Service& service);
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // Runs until stop(); on the calling thread, which becomes the loop thread.
  void run();
  // Any thread.
  void stop();
  // Any thread: the first half of a graceful stop (a SIGTERM's). The loop
  // accepts no more connections and arms no more receives; what it has
  // already received is still handled, and `done` runs on the loop thread
  // once every receive in flight has ended, so nothing more will reach the
  // service. The connections stay open for their answers.
  void stop_reading(std::function<void()> done);
  // Any thread, after stop_reading: every WebSocket is closed with `code`
  // behind what is queued for it; an HTTP connection after the answer it
  // waits for, an idle one at once.
  void close_all(uint16_t code, std::string reason);
  // Any thread: runs fn on the loop thread soon. fn must not block.
  void post(std::function<void()> fn);

  uint16_t index() const { return index_; }
  uint16_t port() const { return port_; }
  const LoopStats& stats() const { return stats_; }
  size_t connections() const { return live_; }

  // --- loop thread only ---
  Connection* find(ConnId id);
  // Queues one text frame answering the client (OK, EOSE, CLOSED, NOTICE, …).
  // False if the frame was dropped (slow client).
  bool send_text(Connection& c, std::string_view payload);
  // Queues one frame of a REQ's history. False when the queue is full: the
  // replay then ends there, without EOSE (docs/reference/protocol.md §5.4), and no strike counts.
  bool send_history(Connection& c, std::string_view payload);
  // Queues a text frame made of prefix + *shared + suffix without copying *shared.
  bool send_shared(Connection& c, std::string_view prefix, std::shared_ptr<const std::string> shared,
                   std::string_view suffix);
  // Queues a binary frame made of prefix + *shared (the huddle's audio, one
  // buffer for every recipient) that may be lost: false, and dropped, when
  // `max_waiting` lossy frames already wait for this connection. Never counts
  // against the connection (no strike, no close), and every other frame queued
  // later goes out before it, so a slow reader loses only such frames and its
  // control messages are never stuck behind them.
  bool send_lossy(Connection& c, std::string_view prefix, std::shared_ptr<const std::string> shared,
                  size_t max_waiting);
  // The application trusts c now (its WebSocket session authenticated): it no
  // longer counts against LoopOptions::addresses, and its messages are read up
  // to LoopOptions::max_read_bytes. Idempotent.
  void vouch(Connection& c);
  // Answers the HTTP request on_http deferred; dropped if the connection is
  // gone or was not waiting.
  void respond(ConnId id, const HttpResponse& response);
  // Closes once everything queued is written; a WebSocket gets a close frame
  // with `code` first.
  void close(Connection& c, uint16_t code = 1000, std::string_view reason = {});
  // Back-pressure: stops reading from c until resume_reading, so once the
  // kernel's buffers fill the peer's sends block (TCP flow control). Frames
  // already received but not yet handled wait for the resume, which handles
  // them first; sending goes on. While paused the
  // connection reads no pong either, so a pause must be short next to the
  // ping interval. Both are no-ops when there is nothing to change. The loop
  // pauses a connection itself, independently, while its own answers are
  // queued past send_queue_limit (enqueue, on_send).
  void pause_reading(Connection& c);
  void resume_reading(Connection& c);

 private:
  friend class SpoolWriter;
  enum class Op : uint8_t { kAccept, kRecv, kSend, kTick, kInbox, kIgnore };
  static uint64_t tag(Op op, uint32_t slot = 0, uint32_t gen = 0) {
    return uint64_t(op) << 56 | uint64_t(slot & 0xffffff) << 32 | gen;
  }

  // --- loop.cpp: the ring ---
  // pause_reading and resume_reading for one reason (Connection::kPausedBy*):
  // reading resumes once no reason holds it.
  void pause(Connection& c, uint8_t why);
  void resume(Connection& c, uint8_t why);
  io_uring_sqe* sqe();
  // After io_uring_prep_* (which resets the flags): names c's socket by its
  // entry in the ring's file table when it has one, so the kernel skips a file
  // lookup per operation.
  static void use_file_table(io_uring_sqe* s, const Connection& c);
  void arm_accept();
  void provide_buffers(unsigned n);  // the next n of the receive buffers into the ring
  void arm_recv(Connection& c);
  void arm_tick();
  void arm_inbox();
  void on_accept(int res, uint32_t flags);
  void on_recv(Connection& c, int res, uint32_t flags);
  // A receive stop_reading waits for has ended: the last one runs its `done`.
  void receive_ended();
  // Starts one writev of the queued frames (at most kMaxFramesPerSend), or,
  // with none left, finishes a close; on_send completes a short write first.
  void flush(Connection& c);
  // One writev of c.send_->iov.
  void write_out(Connection& c);
  // Nothing more to write for a closing connection: half-close and linger, or destroy.
  void end_after_flush(Connection& c);
  void on_send(Connection& c, int res);
  void on_tick();
  void on_inbox();
  void destroy(Connection& c);
  void maybe_free(Connection& c);
  // Refuses an accepted socket before it has a slot: a canned answer, then close.
  void refuse_accept(int fd, const std::string& answer);
  // A connection let in past the cap that asked for more than a probe, or
  // for nothing in time: the cap's 503, then closed.
  void refuse_past_cap(Connection& c);
  // Once a tick: publishes this loop's queued bytes to the SendMemory, and past
  // its bound closes the slowest readers (loop_send.cpp).
  void bound_send_memory();

  // --- loop_http_ws.cpp: received bytes ---
  // Feeds received bytes to the connection's protocol phase. False = close it.
  bool consume(Connection& c, char* data, size_t len);
  size_t consume_http(Connection& c, std::string_view data);
  size_t consume_frames(Connection& c, char* data, size_t len, bool* ok);
  bool on_frame(Connection& c, const ws::FrameHeader& h, char* payload);
  bool deliver(Connection& c, ws::Opcode op, std::string_view payload);
  // A whole plain HTTP request to the service, and its answer (now or later) queued.
  void answer_http(Connection& c, const HttpRequest& whole);

  // --- loop_tls.cpp: TLS connections (net/tls.h) ---
  // on_recv's consume for them: decrypts, then consume() the plaintext.
  bool consume_tls(Connection& c, const char* data, size_t len);
  // flush for them: the next batch of queued frames encrypted into one write.
  void flush_tls(Connection& c);

  // --- loop_spool.cpp: bodies streamed to a file (body_spool.h) ---
  // After the head: starts streaming c's body as `spec` says, or refuses it.
  // Returns the bytes of data consumed (the head; all of data when refused).
  size_t start_spool(Connection& c, Connection::PendingRequest&& pending, SpoolSpec spec, size_t data_size);
  // Body bytes of a spooling request: handed to the writer as they come.
  size_t consume_spooled(Connection& c, std::string_view data);
  // Refuses a spooling request: answered, closed, its file dropped.
  size_t refuse_spooled(Connection& c, HttpResponse response, size_t data_size);
  // At a wheel visit: false when the body came slower than its
  // SpoolSpec::min_bytes_per_sec over the last full interval.
  bool keeps_pace(const Connection& c, BodySpool& spool);
  // From the writer: the body is on disk (or failed), or its backlog drained.
  void on_spool_done(const std::shared_ptr<BodySpool>& spool);
  void on_spool_drained(ConnId id);

  // --- loop_send.cpp: the outbound queue ---
  // Queues an HTTP response: the head is serialized, the body is sent without a copy.
  void send_response(Connection& c, HttpResponse&& r, bool keep_alive, bool head_only = false);
  // What a frame is, for the queue limits: control frames always go (the
  // heartbeats within their own 8 slots); live fan-out is held to
  // send_queue_limit; answers and history get answer_allowance more.
  enum class Traffic : uint8_t { kControl, kLive, kAnswer, kHistory, kLossy };
  bool enqueue(Connection& c, OutFrame&& f, Traffic traffic);
  void queue_raw(Connection& c, std::string bytes);
  // A heartbeat ping; counts as unanswered until a pong arrives.
  void ping(Connection& c);
  // Answers a Ping with its payload; false as queue_heartbeat.
  bool pong(Connection& c, std::string_view payload);
  // Queues a Ping or Pong on the control queue; false when its 8 slots are
  // full: a peer that sends Pings but never reads must not grow the queue
  // (docs/reference/protocol.md §5.3 counts it as a dead writer).
  bool queue_heartbeat(Connection& c, OutFrame&& f);
  // Frames enter and leave the queue's byte counts (queued; sent, dropped or shed).
  void queue_bytes(Connection& c, size_t bytes) {
    c.queued_bytes_ += bytes;
    queued_bytes_ += bytes;
  }
  void unqueue_bytes(Connection& c, size_t bytes) {
    c.queued_bytes_ -= bytes;
    queued_bytes_ -= bytes;
  }

  uint16_t index_;
  LoopOptions options_;
  Service& service_;
  io_uring ring_{};
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  bool stopping_ = false;
  // stop_reading: receives still armed, and who hears when none is.
  bool reading_stopped_ = false;
  size_t receives_ending_ = 0;
  std::function<void()> on_reading_stopped_;
  uint32_t turn_ = 0;  // turns of run()'s loop: one batch of completions and posted tasks

  // Provided receive buffers: up to kBufferCount × kBufferBytes, shared by
  // every connection; the first buffers_provided_ of them are in the ring.
  io_uring_buf_ring* buf_ring_ = nullptr;
  char* buffers_ = nullptr;
  size_t buf_ring_bytes_ = 0;
  unsigned buffers_provided_ = 0;
  bool recv_starved_ = false;  // some receives stopped for lack of buffers

  // Registered files: connection sockets live in the ring's sparse file table
  // at their fd number, for fds below this size (0 when registration failed).
  unsigned file_table_size_ = 0;

  std::vector<std::unique_ptr<Connection>> slots_;
  std::vector<uint32_t> free_slots_;
  std::vector<Connection*> dirty_;
  std::vector<Connection*> starved_;
  std::vector<ConnId> closing_;  // connections draining before close, checked once a second
  std::vector<std::pair<ConnId, uint32_t>> probes_;  // probe-only connections and their accept tick
  size_t queued_bytes_ = 0;      // Connection::queued_bytes_ of every connection
  std::vector<std::vector<uint32_t>> wheel_;  // ping wheel: slots by second of the interval
  uint32_t tick_count_ = 0;
  size_t live_ = 0;
  LoopStats stats_;
  std::unique_ptr<SpoolWriter> spool_writer_;  // started by the first spooled body
  std::string tls_plain_;    // TLS: one receive's plaintext (loop_tls.cpp); keeps its capacity
  std::string tls_staging_;  // TLS: plaintext gathered into one record before encrypting

  __kernel_timespec tick_interval_{1, 0};
  int inbox_fd_ = -1;
  uint64_t inbox_value_ = 0;
  std::mutex inbox_mu_;
  std::vector<std::function<void()>> inbox_;
  std::atomic<bool> inbox_signalled_{false};
  std::atomic<bool> stop_requested_{false};
};

}  // namespace buzz::net
