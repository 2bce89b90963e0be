// The io_uring event loop proper: the ring, the listener, the provided receive
// buffers, and the completions that drive every connection (accept, recv, the
// writev of its queued frames, the tick, the inbox). Every SQE is prepared in
// this file. What received bytes mean lives in loop_http_ws.cpp and what may be
// queued for a connection in loop_send.cpp; neither touches the ring.
// See loop.h and docs/threads.md.
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

// Defined beside the rest of the spooling in loop_spool.cpp.
void let_writer_remove(SpoolWriter& writer, std::shared_ptr<BodySpool> spool);

namespace {

constexpr unsigned kRingEntries = 4096;
// Largest file table a ring registers (8 bytes per entry in the kernel); fds
// above it still work, named by number.
constexpr rlim_t kMaxFileTable = 1 << 16;
constexpr uint16_t kBufferGroup = 0;
constexpr unsigned kBufferCount = 512;   // power of two: the ring's size, the most buffers a loop provides
constexpr size_t kBufferBytes = 4096;
// Buffers provided at start. The kernel takes them in ring order, so every
// buffer provided is soon resident however few receives are in flight: the
// pool starts small and doubles only when receives run out (Loop::run).
constexpr unsigned kFirstBuffers = 32;
constexpr size_t kMaxFramesPerSend = 256;
constexpr uint32_t kCloseGraceTicks = 5;  // seconds a closing connection may go without progress
// Seconds a lingering HTTP connection may keep sending a refused body: a 50 MiB
// upload on a loaded machine takes more than the grace, and closing under it
// resets the connection and can destroy the answer before the client reads it.
constexpr uint32_t kMaxCloseTicks = 30;
// A request body slower than this per ping interval counts as stalled.
constexpr uint32_t kMinBodyBytesPerInterval = 1024;
// Seconds a connection let in past the cap for a probe may take to be answered.
constexpr uint32_t kProbeTicks = 3;

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

std::string peer_text(const sockaddr_in& addr) {
  if (addr.sin_family != AF_INET) return "?";
  char ip[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port));
}

// The answer past the connection cap.
HttpResponse at_cap() { return HttpResponse::json(503, R"({"error":"the relay is at its connection limit, retry later"})"); }

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
  // Reserved whole, resident only where a receive has written.
  void* buffers = mmap(nullptr, kBufferCount * kBufferBytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (buffers == MAP_FAILED) throw std::runtime_error("mmap for the receive buffers failed");
  buffers_ = static_cast<char*>(buffers);
  provide_buffers(kFirstBuffers);

  // Best effort: without a file table every operation names the plain fd.
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  const unsigned table = unsigned(std::min<rlim_t>(files.rlim_cur, kMaxFileTable));
  if (io_uring_register_files_sparse(&ring_, table) == 0) file_table_size_ = table;

  inbox_fd_ = eventfd(0, EFD_CLOEXEC);
  wheel_.resize(size_t(std::max(1, options_.ping_interval_secs)));
}

Loop::~Loop() {
  spool_writer_.reset();  // joined first: it posts to this loop
  for (auto& c : slots_) {
    if (c && c->fd_ >= 0) ::close(c->fd_);
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (inbox_fd_ >= 0) ::close(inbox_fd_);
  io_uring_queue_exit(&ring_);
  if (buf_ring_) munmap(buf_ring_, buf_ring_bytes_);
  if (buffers_) munmap(buffers_, kBufferCount * kBufferBytes);
}

void Loop::provide_buffers(unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    const unsigned bid = buffers_provided_ + i;
    io_uring_buf_ring_add(buf_ring_, buffers_ + size_t(bid) * kBufferBytes, kBufferBytes, uint16_t(bid),
                          io_uring_buf_ring_mask(kBufferCount), int(i));
  }
  io_uring_buf_ring_advance(buf_ring_, n);
  buffers_provided_ += n;
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
  if (reading_stopped_) return;
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
    ++turn_;
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
    // given its buffers back, with twice the buffers while the ring has room.
    if (recv_starved_) {
      recv_starved_ = false;
      if (buffers_provided_ < kBufferCount) provide_buffers(std::min(buffers_provided_, kBufferCount - buffers_provided_));
      for (Connection* c : starved_) {
        if (c->phase_ != Connection::Phase::kDead && !c->recv_armed_ && !c->read_paused_) arm_recv(*c);
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

void Loop::stop_reading(std::function<void()> done) {
  post([this, done = std::move(done)]() mutable {
    if (listen_fd_ >= 0) {
      io_uring_sqe* q = sqe();
      io_uring_prep_cancel64(q, tag(Op::kAccept), 0);
      io_uring_sqe_set_data64(q, tag(Op::kIgnore));
      ::close(listen_fd_);  // the ring holds the socket until the cancel lands
      listen_fd_ = -1;
    }
    reading_stopped_ = true;
    on_reading_stopped_ = std::move(done);
    for (auto& c : slots_) {
      if (!c || !c->recv_armed_) continue;
      ++receives_ending_;
      io_uring_sqe* q = sqe();
      io_uring_prep_cancel64(q, tag(Op::kRecv, c->id_.slot, c->id_.gen), 0);
      io_uring_sqe_set_data64(q, tag(Op::kIgnore));
    }
    if (receives_ending_ == 0) on_reading_stopped_();
  });
}

void Loop::close_all(uint16_t code, std::string reason) {
  post([this, code, reason = std::move(reason)] {
    for (auto& c : slots_) {
      if (!c) continue;
      if (c->phase_ == Connection::Phase::kWebSocket) {
        close(*c, code, reason);
      } else if (c->phase_ == Connection::Phase::kHttp && c->awaiting_response_) {
        c->response_keep_alive_ = false;  // Loop::respond closes it
      } else if (c->phase_ == Connection::Phase::kHttp) {
        close(*c);
        c->linger_ = false;  // nothing more is read: no peer's close to wait for
      }
    }
  });
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

void Loop::refuse_accept(int fd, const std::string& answer) {
  ssize_t n = ::send(fd, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  (void)n;
  ::close(fd);
}

void Loop::on_accept(int res, uint32_t flags) {
  if (!(flags & IORING_CQE_F_MORE) && !stopping_ && listen_fd_ >= 0) arm_accept();
  if (res < 0) return;
  int fd = res;
  if (listen_fd_ < 0) return (void)::close(fd);  // accepted as stop_reading began
  bool probe_only = false;
  if (options_.connection_count) {
    const int64_t before = options_.connection_count->fetch_add(1);
    // Past the cap a few more are let in for the probes alone (LoopOptions::probe_reserve).
    probe_only = before >= options_.max_connections;
    if (probe_only && (options_.probe_paths.empty() || before >= options_.max_connections + options_.probe_reserve)) {
      options_.connection_count->fetch_sub(1);
      LoopStats::bump(stats_.refused);
      // A clean refusal: the client reads why instead of a bare reset.
      static const std::string kFull = serialize_response(at_cap(), false);
      return refuse_accept(fd, options_.tls ? std::string() : kFull);  // over TLS it would be noise
    }
  }
  sockaddr_in peer{};
  socklen_t peer_len = sizeof peer;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) peer.sin_family = AF_UNSPEC;
  const bool counted = options_.addresses && options_.addresses->max_per_address() > 0;
  if (counted && !options_.addresses->try_add(peer.sin_addr.s_addr)) {
    if (options_.connection_count) options_.connection_count->fetch_sub(1);
    LoopStats::bump(stats_.refused_address);
    static const std::string kBusy = serialize_response(
        HttpResponse::json(429, R"({"error":"rate-limited: too many connections from this address waiting to authenticate, retry later"})"),
        false);
    return refuse_accept(fd, options_.tls ? std::string() : kBusy);
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
  c.peer_ = peer_text(peer);
  c.addr_ = peer.sin_addr.s_addr;
  c.unvouched_ = counted;
  c.probe_only_ = probe_only;
  if (options_.tls) c.tls_ = std::make_unique<Connection::TlsState>(*options_.tls);
  if (probe_only) {
    probes_.emplace_back(c.id_, tick_count_);
    LoopStats::bump(stats_.probes_past_cap);
  }
  c.wheel_slot_ = uint8_t(tick_count_ % wheel_.size());
  wheel_[c.wheel_slot_].push_back(slot);
  ++live_;
  LoopStats::bump(stats_.accepted);
  arm_recv(c);
}

void Loop::refuse_past_cap(Connection& c) {
  LoopStats::bump(stats_.refused);
  send_response(c, at_cap(), false);
  close(c);
}

void Loop::vouch(Connection& c) {
  c.vouched_ = true;
  if (!c.unvouched_) return;
  c.unvouched_ = false;
  options_.addresses->remove(c.addr_);
}

void Loop::on_recv(Connection& c, int res, uint32_t flags) {
  const bool ended = !(flags & IORING_CQE_F_MORE);
  if (ended) c.recv_armed_ = false;
  if (res > 0) {
    uint16_t bid = uint16_t(flags >> IORING_CQE_BUFFER_SHIFT);
    char* data = buffers_ + size_t(bid) * kBufferBytes;
    bool ok = c.phase_ == Connection::Phase::kDead ||
              (c.tls_ ? consume_tls(c, data, size_t(res)) : consume(c, data, size_t(res)));
    io_uring_buf_ring_add(buf_ring_, data, kBufferBytes, bid, io_uring_buf_ring_mask(kBufferCount), 0);
    io_uring_buf_ring_advance(buf_ring_, 1);
    if (!ok) destroy(c);
  } else if (res == -ENOBUFS) {
    recv_starved_ = true;
    starved_.push_back(&c);
    if (ended && reading_stopped_) receive_ended();
    return;
  } else if (res == -ECANCELED && c.phase_ != Connection::Phase::kDead) {
    // pause_reading cancelled it; resume_reading arms the next one.
  } else if (res != -ECANCELED || c.phase_ != Connection::Phase::kDead) {
    destroy(c);  // EOF (0) or a socket error
  }
  if (c.phase_ == Connection::Phase::kDead) {
    maybe_free(c);
  } else if (!c.recv_armed_ && !c.read_paused_) {
    arm_recv(c);
  }
  if (ended && reading_stopped_) receive_ended();  // after the bytes above were handled
}

void Loop::receive_ended() {
  if (receives_ending_ > 0 && --receives_ending_ == 0) on_reading_stopped_();
}

void Loop::pause_reading(Connection& c) { pause(c, Connection::kPausedByService); }

void Loop::resume_reading(Connection& c) { resume(c, Connection::kPausedByService); }

void Loop::pause(Connection& c, uint8_t why) {
  if ((c.read_paused_ & why) || c.phase_ == Connection::Phase::kDead) return;
  const bool was_reading = !c.read_paused_;
  c.read_paused_ |= why;
  if (!was_reading || !c.recv_armed_) return;
  io_uring_sqe* q = sqe();
  io_uring_prep_cancel64(q, tag(Op::kRecv, c.id_.slot, c.id_.gen), 0);
  io_uring_sqe_set_data64(q, tag(Op::kIgnore));
}

void Loop::resume(Connection& c, uint8_t why) {
  if (!(c.read_paused_ & why) || c.phase_ == Connection::Phase::kDead) return;
  c.read_paused_ &= uint8_t(~why);
  if (c.read_paused_) return;  // still held for the other reason
  // First what was received but not handled when the pause came; it may pause again.
  if (!c.inbuf_.empty() && !consume(c, nullptr, 0)) return destroy(c);
  // Still armed: the cancel is in flight, and its completion re-arms (on_recv).
  if (c.phase_ != Connection::Phase::kDead && !c.recv_armed_ && !c.read_paused_) arm_recv(c);
}

void Loop::flush(Connection& c) {
  if (c.phase_ == Connection::Phase::kDead) return;
  if (c.tls_) return flush_tls(c);
  if (c.pending_.empty()) {
    if (c.close_after_flush_) end_after_flush(c);
    return;
  }
  if (!c.send_) c.send_ = std::make_unique<Connection::SendState>();
  Connection::SendState& s = *c.send_;
  size_t n = std::min(c.pending_.size(), kMaxFramesPerSend);
  s.frames.assign(std::make_move_iterator(c.pending_.begin()), std::make_move_iterator(c.pending_.begin() + long(n)));
  if (c.heartbeats_queued_ || c.lossy_queued_) {  // almost never: the fan-out's flushes skip the walk
    for (const OutFrame& f : s.frames) {
      c.heartbeats_queued_ -= f.heartbeat;
      c.lossy_queued_ -= f.lossy;
    }
  }
  c.pending_.erase(c.pending_.begin(), c.pending_.begin() + long(n));
  if (c.pending_.empty()) std::vector<OutFrame>().swap(c.pending_);
  s.iov.clear();
  s.first = 0;
  s.bytes = 0;
  for (OutFrame& f : s.frames) {
    s.bytes += f.size();
    s.iov.push_back({f.head.data(), f.head.size()});
    if (f.shared && !f.shared->empty()) s.iov.push_back({const_cast<char*>(f.shared->data()), f.shared->size()});
    if (!f.tail.empty()) s.iov.push_back({f.tail.data(), f.tail.size()});
  }
  write_out(c);
}

void Loop::write_out(Connection& c) {
  Connection::SendState& s = *c.send_;
  c.sending_ = true;
  io_uring_sqe* q = sqe();
  io_uring_prep_writev(q, c.fd_, s.iov.data() + s.first, unsigned(s.iov.size() - s.first), 0);
  use_file_table(q, c);
  io_uring_sqe_set_data64(q, tag(Op::kSend, c.id_.slot, c.id_.gen));
}

void Loop::end_after_flush(Connection& c) {
  // Lingering: no more writes, discard what arrives until the peer closes
  // (or kCloseGraceTicks pass), then destroy.
  if (c.linger_) {
    ::shutdown(c.fd_, SHUT_WR);
  } else {
    destroy(c);
  }
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
    return write_out(c);
  }
  unqueue_bytes(c, s.bytes);
  c.send_.reset();  // idle connections keep no send buffers
  flush(c);
  // Its answers drained to half the live limits: read its requests again.
  if ((c.read_paused_ & Connection::kPausedByBacklog) && c.pending_.size() < options_.send_queue_limit / 2 &&
      c.queued_bytes_ < options_.send_queue_bytes / 2) {
    resume(c, Connection::kPausedByBacklog);
  }
}

void Loop::destroy(Connection& c) {
  if (c.phase_ == Connection::Phase::kDead) return;
  c.phase_ = Connection::Phase::kDead;
  if (c.request_ && c.request_->spool) {  // a body being streamed: its writer stops, and removes the file
    let_writer_remove(*spool_writer_, std::move(c.request_->spool));
  }
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
  if (c.unvouched_) vouch(c);  // gone: no longer counted against its address
  unqueue_bytes(c, c.queued_bytes_);
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
  c.lossy_queued_ = 0;
  c.send_.reset();
  c.context_.reset();
  c.request_.reset();
  c.tls_.reset();
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
      // A body streamed to a file counts what it has handed over, and must be
      // whole within its own deadline (SpoolSpec::timeout_secs).
      BodySpool* spool = c.request_ ? c.request_->spool.get() : nullptr;
      if (spool && !spool->finishing && tick_count_ - spool->started_tick > uint32_t(spool->spec.timeout_secs)) {
        destroy(c);
        continue;
      }
      if (spool && spool->finishing) continue;  // whole: the writer is finishing it, not the client
      const size_t progress = spool ? size_t(spool->received + spool->batch.size()) : c.inbuf_.size();
      if (spool && !keeps_pace(c, *spool)) {
        LoopStats::bump(stats_.slow_bodies);
        const std::string why = "upload too slow: under " + std::to_string(spool->spec.min_bytes_per_sec) +
                                " bytes per second";
        refuse_spooled(c, HttpResponse::json(408, "{\"error\":\"" + why + "\"}"), 0);
        continue;
      }
      const auto buffered = uint32_t(std::min<size_t>(progress, UINT32_MAX));
      const bool body_advanced = c.request_ && buffered >= c.body_bytes_at_visit_ + kMinBodyBytesPerInterval;
      c.body_bytes_at_visit_ = buffered;
      if (body_advanced) {
        c.silent_intervals_ = 0;
      } else if (++c.silent_intervals_ >= options_.http_idle_intervals) {
        destroy(c);
      }
    }
  }
  // Probes let in past the connection cap get a moment, not the idle allowance.
  std::erase_if(probes_, [this](const std::pair<ConnId, uint32_t>& p) {
    Connection* c = find(p.first);
    if (!c || c->phase_ != Connection::Phase::kHttp) return true;  // gone, or answered and closing
    if (tick_count_ - p.second < kProbeTicks) return false;
    refuse_past_cap(*c);
    return true;
  });
  bound_send_memory();
  // Closing connections that do not drain in time are dropped.
  std::erase_if(closing_, [this](ConnId id) {
    Connection* c = find(id);
    if (!c) return true;  // already gone
    if (++c->closing_ticks_ <= kCloseGraceTicks && ++c->closing_age_ <= kMaxCloseTicks) return false;
    destroy(*c);
    return true;
  });
  service_.on_tick(*this);
}

}  // namespace buzz::net
