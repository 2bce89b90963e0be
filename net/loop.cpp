// The io_uring event loop; see loop.h and docs/threads.md.
#include "net/loop.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace buzz::net {
namespace {

constexpr unsigned kRingEntries = 4096;
// Largest file table a ring registers (8 bytes per entry in the kernel); fds
// above it still work, named by number.
constexpr rlim_t kMaxFileTable = 1 << 16;
constexpr uint16_t kBufferGroup = 0;
constexpr unsigned kBufferCount = 512;   // power of two
constexpr size_t kBufferBytes = 4096;
constexpr size_t kMaxFramesPerSend = 256;
constexpr uint8_t kControlQueueSlots = 8;  // Pings and Pongs waiting to be written (protocol.md §5.3)
constexpr uint32_t kCloseGraceTicks = 5;  // seconds a closing connection may take to drain
// A request body slower than this per ping interval counts as stalled.
constexpr uint32_t kMinBodyBytesPerInterval = 1024;

// SO_REUSEPORT lets any process of the same user join a port's group, and the
// kernel would then spread connections between two unrelated relays. Before the
// first loop joins, a plain bind proves nobody listens there yet.
void ensure_port_unused(const sockaddr_in& addr, const std::string& where) {
  int probe = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) throw std::runtime_error(std::string("socket: ") + strerror(errno));
  int one = 1;
  setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // connections in TIME_WAIT do not count
  int rc = ::bind(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int err = errno;
  ::close(probe);
  if (rc < 0) throw std::runtime_error("cannot listen on " + where + ": " + strerror(err) + " (is another server running there?)");
}

int listen_socket(const std::string& host, uint16_t port, bool first, uint16_t* bound_port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    throw std::runtime_error("bind address '" + host + "' is not an IPv4 address");
  }
  const std::string where = host + ":" + std::to_string(port);
  if (first && port != 0) ensure_port_unused(addr, where);
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + strerror(errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 || ::listen(fd, 4096) < 0) {
    std::string why = strerror(errno);
    ::close(fd);
    throw std::runtime_error("cannot listen on " + where + ": " + why);
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *bound_port = ntohs(addr.sin_port);
  return fd;
}

std::string peer_of(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "?";
  char ip[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port));
}

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

Loop::Loop(uint16_t index, const LoopOptions& options, Service& service)
    : index_(index), options_(options), service_(service) {
  io_uring_params params{};
  params.flags = IORING_SETUP_COOP_TASKRUN;  // not SINGLE_ISSUER: the ring is built on the main thread, run on its own
  if (int r = io_uring_queue_init_params(kRingEntries, &ring_, &params); r < 0) {
    throw std::runtime_error(std::string("io_uring_queue_init: ") + strerror(-r));
  }
  listen_fd_ = listen_socket(options_.host, options_.port, /*first=*/index_ == 0, &port_);

  // Provided buffer ring: the kernel picks a buffer per receive, so a
  // connection holds receive memory only while its data is being handled.
  buf_ring_bytes_ = kBufferCount * sizeof(io_uring_buf);
  void* ring_mem = mmap(nullptr, buf_ring_bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (ring_mem == MAP_FAILED) throw std::runtime_error("mmap for the buffer ring failed");
  buf_ring_ = static_cast<io_uring_buf_ring*>(ring_mem);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(buf_ring_);
  reg.ring_entries = kBufferCount;
  reg.bgid = kBufferGroup;
  if (int r = io_uring_register_buf_ring(&ring_, &reg, 0); r < 0) {
    throw std::runtime_error(std::string("io_uring_register_buf_ring: ") + strerror(-r));
  }
  io_uring_buf_ring_init(buf_ring_);
  buffers_ = static_cast<char*>(::operator new(kBufferCount * kBufferBytes));
  for (unsigned i = 0; i < kBufferCount; ++i) {
    io_uring_buf_ring_add(buf_ring_, buffers_ + i * kBufferBytes, kBufferBytes, uint16_t(i),
                          io_uring_buf_ring_mask(kBufferCount), int(i));
  }
  io_uring_buf_ring_advance(buf_ring_, kBufferCount);

  // Best effort: without a file table every operation names the plain fd.
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  const unsigned table = unsigned(std::min<rlim_t>(files.rlim_cur, kMaxFileTable));
  if (io_uring_register_files_sparse(&ring_, table) == 0) file_table_size_ = table;

  inbox_fd_ = eventfd(0, EFD_CLOEXEC);
  wheel_.resize(size_t(std::max(1, options_.ping_interval_secs)));
}

Loop::~Loop() {
  for (auto& c : slots_) {
    if (c && c->fd_ >= 0) ::close(c->fd_);
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (inbox_fd_ >= 0) ::close(inbox_fd_);
  io_uring_queue_exit(&ring_);
  if (buf_ring_) munmap(buf_ring_, buf_ring_bytes_);
  ::operator delete(buffers_);
}

io_uring_sqe* Loop::sqe() {
  io_uring_sqe* s = io_uring_get_sqe(&ring_);
  while (!s) {
    io_uring_submit(&ring_);
    s = io_uring_get_sqe(&ring_);
  }
  return s;
}

void Loop::use_file_table(io_uring_sqe* s, const Connection& c) {
  if (c.fixed_file_) s->flags |= IOSQE_FIXED_FILE;
}

void Loop::arm_accept() {
  io_uring_sqe* s = sqe();
  io_uring_prep_multishot_accept(s, listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  io_uring_sqe_set_data64(s, tag(Op::kAccept));
}

void Loop::arm_recv(Connection& c) {
  io_uring_sqe* s = sqe();
  io_uring_prep_recv_multishot(s, c.fd_, nullptr, 0, 0);
  use_file_table(s, c);
  s->flags |= IOSQE_BUFFER_SELECT;
  s->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(s, tag(Op::kRecv, c.id_.slot, c.id_.gen));
  c.recv_armed_ = true;
}

void Loop::arm_tick() {
  io_uring_sqe* s = sqe();
  io_uring_prep_timeout(s, &tick_interval_, 0, 0);
  io_uring_sqe_set_data64(s, tag(Op::kTick));
}

void Loop::arm_inbox() {
  io_uring_sqe* s = sqe();
  io_uring_prep_read(s, inbox_fd_, &inbox_value_, sizeof inbox_value_, 0);
  io_uring_sqe_set_data64(s, tag(Op::kInbox));
}

void Loop::run() {
  arm_accept();
  arm_tick();
  arm_inbox();
  while (!stopping_) {
    io_uring_submit_and_wait(&ring_, 1);
    unsigned head, seen = 0;
    io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      uint64_t data = io_uring_cqe_get_data64(cqe);
      Op op = Op(data >> 56);
      uint32_t slot = uint32_t(data >> 32) & 0xffffff;
      uint32_t gen = uint32_t(data);
      switch (op) {
        case Op::kAccept: on_accept(cqe->res, cqe->flags); break;
        case Op::kTick: on_tick(); break;
        case Op::kInbox: on_inbox(); break;
        case Op::kIgnore: break;
        case Op::kRecv:
        case Op::kSend: {
          Connection* c = slot < slots_.size() ? slots_[slot].get() : nullptr;
          if (!c || c->id_.gen != gen) break;  // cannot happen: slots are freed only when idle
          op == Op::kRecv ? on_recv(*c, cqe->res, cqe->flags) : on_send(*c, cqe->res);
          break;
        }
      }
    }
    io_uring_cq_advance(&ring_, seen);
    // Receives that stopped for lack of buffers resume once this batch has
    // given its buffers back.
    if (recv_starved_) {
      recv_starved_ = false;
      for (Connection* c : starved_) {
        if (c->phase_ != Connection::Phase::kDead && !c->recv_armed_) arm_recv(*c);
      }
      starved_.clear();
    }
    // Every send queued while handling this batch goes out in one sendmsg per
    // connection, so a burst of replies or fan-out costs one syscall each.
    for (size_t i = 0; i < dirty_.size(); ++i) {
      Connection* c = dirty_[i];
      c->dirty_ = false;
      if (!c->sending_) flush(*c);
    }
    dirty_.clear();
  }
}

void Loop::stop() {
  stop_requested_ = true;
  post([this] { stopping_ = true; });
}

void Loop::post(std::function<void()> fn) {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(std::move(fn));
  }
  if (!inbox_signalled_.exchange(true)) {
    uint64_t one = 1;
    ssize_t n = ::write(inbox_fd_, &one, sizeof one);
    (void)n;
  }
}

void Loop::on_inbox() {
  inbox_signalled_ = false;
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard lock(inbox_mu_);
    tasks.swap(inbox_);
  }
  for (auto& t : tasks) t();
  if (!stopping_) arm_inbox();
}

Connection* Loop::find(ConnId id) {
  if (id.loop != index_ || id.slot >= slots_.size()) return nullptr;
  Connection* c = slots_[id.slot].get();
  if (!c || c->id_.gen != id.gen || c->phase_ == Connection::Phase::kDead) return nullptr;
  return c;
}

void Loop::on_accept(int res, uint32_t flags) {
  if (!(flags & IORING_CQE_F_MORE) && !stopping_) arm_accept();
  if (res < 0) return;
  int fd = res;
  if (options_.connection_count && options_.connection_count->fetch_add(1) >= options_.max_connections) {
    options_.connection_count->fetch_sub(1);
    LoopStats::bump(stats_.refused);
    // A clean refusal: the client reads why instead of a bare reset.
    static const std::string kFull = serialize_response(
        HttpResponse::json(503, R"({"error":"the relay is at its connection limit, retry later"})"), false);
    ssize_t n = ::send(fd, kFull.data(), kFull.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)n;
    ::close(fd);
    return;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = uint32_t(slots_.size());
    slots_.push_back(std::make_unique<Connection>());
  }
  Connection& c = *slots_[slot];
  uint32_t gen = c.id_.gen + 1;
  c = Connection();
  c.fd_ = fd;
  c.fixed_file_ = unsigned(fd) < file_table_size_ && io_uring_register_files_update(&ring_, unsigned(fd), &fd, 1) == 1;
  c.id_ = ConnId{index_, slot, gen};
  c.peer_ = peer_of(fd);
  c.wheel_slot_ = uint8_t(tick_count_ % wheel_.size());
  wheel_[c.wheel_slot_].push_back(slot);
  ++live_;
  LoopStats::bump(stats_.accepted);
  arm_recv(c);
}

void Loop::on_recv(Connection& c, int res, uint32_t flags) {
  if (!(flags & IORING_CQE_F_MORE)) c.recv_armed_ = false;
  if (res > 0) {
    uint16_t bid = uint16_t(flags >> IORING_CQE_BUFFER_SHIFT);
    char* data = buffers_ + size_t(bid) * kBufferBytes;
    bool ok = c.phase_ == Connection::Phase::kDead || consume(c, data, size_t(res));
    io_uring_buf_ring_add(buf_ring_, data, kBufferBytes, bid, io_uring_buf_ring_mask(kBufferCount), 0);
    io_uring_buf_ring_advance(buf_ring_, 1);
    if (!ok) destroy(c);
  } else if (res == -ENOBUFS) {
    recv_starved_ = true;
    starved_.push_back(&c);
    return;
  } else if (res != -ECANCELED || c.phase_ != Connection::Phase::kDead) {
    destroy(c);  // EOF (0) or a socket error
  }
  if (c.phase_ == Connection::Phase::kDead) {
    maybe_free(c);
  } else if (!c.recv_armed_) {
    arm_recv(c);
  }
}

bool Loop::consume(Connection& c, char* data, size_t len) {
  // Fast path: with nothing buffered, whole requests and frames are handled
  // straight from the ring buffer; only a partial tail is copied.
  char* buf = data;
  size_t n = len;
  if (!c.inbuf_.empty()) {
    if (len) c.inbuf_.append(data, len);
    buf = c.inbuf_.data();
    n = c.inbuf_.size();
  }
  bool ok = true;
  size_t used = 0;
  while (ok && used < n) {
    size_t step = 0;
    if (c.phase_ == Connection::Phase::kHttp) {
      step = consume_http(c, std::string_view(buf + used, n - used));
    } else if (c.phase_ == Connection::Phase::kWebSocket) {
      step = consume_frames(c, buf + used, n - used, &ok);
    } else {
      step = n - used;  // closing: whatever else arrives is ignored
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
    pending.head_bytes = head.consumed;
    pending.max_body = options_.max_http_body;
    if (!req.wants_websocket()) {
      HeadDecision decision = service_.on_request_head(*this, req);
      if (decision.refusal) {
        send_response(c, std::move(*decision.refusal), false);
        close(c);
        return data.size();
      }
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
    bool head_only = whole.method == "HEAD";
    std::optional<HttpResponse> r = service_.on_http(*this, c, whole);
    if (!r) {
      c.awaiting_response_ = true;
      c.response_keep_alive_ = whole.keep_alive;
      c.response_head_only_ = head_only;
      return p.consumed;
    }
    send_response(c, std::move(*r), whole.keep_alive, head_only);
    if (!whole.keep_alive) close(c);
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
    ping(c);  // the heartbeat's first tick is the upgrade itself (protocol.md §5.3)
    service_.on_open(*this, c);
    return p.consumed;
  }
  send_response(c, std::move(refusal), false);
  close(c);
  return data.size();
}

void Loop::send_response(Connection& c, HttpResponse&& r, bool keep_alive, bool head_only) {
  OutFrame f;
  f.head = serialize_response_head(r, keep_alive);
  // A large body (a media file) goes out as it is, not copied behind the head.
  if (!head_only && !r.body.empty()) f.shared = std::make_shared<const std::string>(std::move(r.body));
  enqueue(c, std::move(f), Traffic::kControl);
}

size_t Loop::consume_frames(Connection& c, char* data, size_t len, bool* ok) {
  size_t used = 0;
  while (c.phase_ == Connection::Phase::kWebSocket && used < len) {
    ws::FrameHeader h;
    auto* p = reinterpret_cast<uint8_t*>(data + used);
    ws::HeaderStatus st = ws::parse_header(p, len - used, &h);
    if (st == ws::HeaderStatus::kNeedMore) break;
    if (st == ws::HeaderStatus::kProtocolError || !h.masked) {
      close(c, 1002, "protocol error");
      return len;
    }
    // The frame cap is checked on the header, before any payload is buffered.
    if (h.payload_len > options_.max_message_bytes ||
        c.message_.size() + h.payload_len > options_.max_message_bytes) {
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
      return queue_heartbeat(c, make_frame(ws::Opcode::kPong, body.size(), body));  // false: a dead writer, dropped
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
        c.message_.assign(body);
        return true;
      }
      return deliver(c, h.opcode, body);
    case ws::Opcode::kContinuation: {
      if (!c.in_message_) {
        close(c, 1002, "continuation frame without a message");
        return true;
      }
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
  // Binary frames are read as UTF-8 text; ones that are not UTF-8 are dropped
  // without a reply (protocol.md §3.1).
  if (op == ws::Opcode::kBinary && !ws::is_valid_utf8(payload)) return true;
  LoopStats::bump(stats_.messages_in);
  service_.on_message(*this, c, payload);
  return true;
}

bool Loop::enqueue(Connection& c, OutFrame&& f, Traffic traffic) {
  const bool control = traffic == Traffic::kControl;
  if (c.phase_ == Connection::Phase::kDead || (c.phase_ == Connection::Phase::kClosing && !control)) return false;
  const size_t limit = options_.send_queue_limit + (traffic == Traffic::kLive ? 0 : options_.answer_allowance);
  if (!control && c.pending_.size() >= limit) {
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
  c.pending_.push_back(std::move(f));
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

void Loop::flush(Connection& c) {
  if (c.phase_ == Connection::Phase::kDead) return;
  if (c.pending_.empty()) {
    if (!c.close_after_flush_) return;
    // Lingering: no more writes, discard what arrives until the peer closes
    // (or kCloseGraceTicks pass), then destroy.
    if (c.linger_) {
      ::shutdown(c.fd_, SHUT_WR);
    } else {
      destroy(c);
    }
    return;
  }
  if (!c.send_) c.send_ = std::make_unique<Connection::SendState>();
  Connection::SendState& s = *c.send_;
  size_t n = std::min(c.pending_.size(), kMaxFramesPerSend);
  s.frames.assign(std::make_move_iterator(c.pending_.begin()), std::make_move_iterator(c.pending_.begin() + long(n)));
  if (c.heartbeats_queued_) {  // almost never: the fan-out's flushes skip the walk
    for (const OutFrame& f : s.frames) c.heartbeats_queued_ -= f.heartbeat;
  }
  c.pending_.erase(c.pending_.begin(), c.pending_.begin() + long(n));
  if (c.pending_.empty()) std::vector<OutFrame>().swap(c.pending_);
  s.iov.clear();
  s.first = 0;
  for (OutFrame& f : s.frames) {
    s.iov.push_back({f.head.data(), f.head.size()});
    if (f.shared && !f.shared->empty()) s.iov.push_back({const_cast<char*>(f.shared->data()), f.shared->size()});
    if (!f.tail.empty()) s.iov.push_back({f.tail.data(), f.tail.size()});
  }
  c.sending_ = true;
  io_uring_sqe* q = sqe();
  io_uring_prep_writev(q, c.fd_, s.iov.data(), unsigned(s.iov.size()), 0);
  use_file_table(q, c);
  io_uring_sqe_set_data64(q, tag(Op::kSend, c.id_.slot, c.id_.gen));
}

void Loop::on_send(Connection& c, int res) {
  c.sending_ = false;
  if (res < 0 || c.phase_ == Connection::Phase::kDead) {
    if (c.phase_ != Connection::Phase::kDead) destroy(c);
    maybe_free(c);
    return;
  }
  Connection::SendState& s = *c.send_;
  size_t written = size_t(res);
  while (s.first < s.iov.size() && written >= s.iov[s.first].iov_len) written -= s.iov[s.first++].iov_len;
  if (s.first < s.iov.size()) {
    // A short write: send the rest before anything newer.
    s.iov[s.first].iov_base = static_cast<char*>(s.iov[s.first].iov_base) + written;
    s.iov[s.first].iov_len -= written;
    c.sending_ = true;
    io_uring_sqe* q = sqe();
    io_uring_prep_writev(q, c.fd_, s.iov.data() + s.first, unsigned(s.iov.size() - s.first), 0);
    use_file_table(q, c);
    io_uring_sqe_set_data64(q, tag(Op::kSend, c.id_.slot, c.id_.gen));
    return;
  }
  c.send_.reset();  // idle connections keep no send buffers
  flush(c);
}

void Loop::destroy(Connection& c) {
  if (c.phase_ == Connection::Phase::kDead) return;
  c.phase_ = Connection::Phase::kDead;
  if (c.opened_) service_.on_close(*this, c);
  c.opened_ = false;
  // Wake any receive or send still in flight; the slot is freed when both end.
  ::shutdown(c.fd_, SHUT_RDWR);
  if (c.recv_armed_) {
    io_uring_sqe* q = sqe();
    io_uring_prep_cancel64(q, tag(Op::kRecv, c.id_.slot, c.id_.gen), 0);
    io_uring_sqe_set_data64(q, tag(Op::kIgnore));
  }
  maybe_free(c);
}

void Loop::maybe_free(Connection& c) {
  if (c.phase_ != Connection::Phase::kDead || c.recv_armed_ || c.sending_ || c.fd_ < 0) return;
  // Nothing is in flight or queued for the socket now, so its table entry can
  // go before the fd number is freed for the next accept to reuse.
  if (c.fixed_file_) {
    int none = -1;
    io_uring_register_files_update(&ring_, unsigned(c.fd_), &none, 1);
    c.fixed_file_ = false;
  }
  ::close(c.fd_);
  c.fd_ = -1;
  auto& bucket = wheel_[c.wheel_slot_];
  for (auto& s : bucket) {
    if (s == c.id_.slot) {
      s = bucket.back();
      bucket.pop_back();
      break;
    }
  }
  c.pending_.clear();
  c.heartbeats_queued_ = 0;
  c.send_.reset();
  c.context_.reset();
  c.request_.reset();
  std::string().swap(c.inbuf_);
  std::string().swap(c.message_);
  free_slots_.push_back(c.id_.slot);
  --live_;
  if (options_.connection_count) options_.connection_count->fetch_sub(1);
}

void Loop::on_tick() {
  if (stopping_) return;
  arm_tick();
  ++tick_count_;
  // Each second visits the connections that joined in this second of the ping
  // interval, so every connection is pinged once per interval at O(n/interval).
  auto& bucket = wheel_[tick_count_ % wheel_.size()];
  for (size_t i = 0; i < bucket.size(); ++i) {
    Connection& c = *slots_[bucket[i]];
    if (c.phase_ == Connection::Phase::kWebSocket) {
      if (c.silent_intervals_ >= options_.missed_pongs_limit) {
        close(c, 1001, "no pong");
        continue;
      }
      ping(c);
    } else if (c.phase_ == Connection::Phase::kHttp && !c.awaiting_response_) {
      // An HTTP connection must finish a request every few intervals: idle, or
      // holding half a head ("slowloris"), it is closed, so held connections
      // cannot use up the connection cap. A body that keeps coming is progress.
      const auto buffered = uint32_t(std::min<size_t>(c.inbuf_.size(), UINT32_MAX));
      const bool body_advanced = c.request_ && buffered >= c.body_bytes_at_visit_ + kMinBodyBytesPerInterval;
      c.body_bytes_at_visit_ = buffered;
      if (body_advanced) {
        c.silent_intervals_ = 0;
      } else if (++c.silent_intervals_ >= options_.http_idle_intervals) {
        destroy(c);
      }
    }
  }
  // Closing connections that do not drain in time are dropped.
  std::erase_if(closing_, [this](ConnId id) {
    Connection* c = find(id);
    if (!c) return true;  // already gone
    if (++c->closing_ticks_ <= kCloseGraceTicks) return false;
    destroy(*c);
    return true;
  });
  service_.on_tick(*this);
}

}  // namespace buzz::net
