// Blocking WebSocket client and HTTP helper for tests and the load tool; see
// tools/client/ws_client.h. Sockets are non-blocking and every wait goes
// through poll() with a deadline, so a silent server cannot hang a test.
// Invariant: rx_[rx_off_..) always starts at a frame boundary.
#include "tools/client/ws_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "engine/base64.h"
#include "engine/text.h"

namespace buzz::client {
namespace {

namespace ws = net::ws;

constexpr int kSendTimeoutMs = 10000;
constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr uint64_t kMaxFrameBytes = 256ull << 20;  // refuse absurd lengths

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// Deadlines are absolute steady-clock ms; -1 means "no deadline".
int64_t deadline_after(int timeout_ms) {
  return timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
}

int remaining_ms(int64_t deadline) {
  if (deadline < 0) return -1;
  const int64_t left = deadline - now_ms();
  return left <= 0 ? 0 : static_cast<int>(left);
}

// > 0 ready, 0 timed out, < 0 error.
int wait_fd(int fd, short events, int64_t deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, remaining_ms(deadline));
    if (rc < 0 && errno == EINTR) continue;
    return rc;
  }
}

int connect_tcp(const std::string& host, uint16_t port, int64_t deadline,
                std::string* error) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
    *error = "not an IPv4 literal: " + host;
    return -1;
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  int err = 0;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0) {
    err = errno;
    if (err == EINPROGRESS) {
      err = ETIMEDOUT;
      socklen_t len = sizeof(err);
      if (wait_fd(fd, POLLOUT, deadline) > 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    }
  }
  if (err != 0) {
    *error = "connect " + host + ":" + std::to_string(port) + ": " + std::strerror(err);
    ::close(fd);
    return -1;
  }
  return fd;
}

// A socket, and the TLS session over it if any: every read and write goes through here.
struct Link {
  int fd;
  SSL* ssl;
};

// One client context per CA file, for the life of the process.
SSL_CTX* client_context(const std::string& ca_file, std::string* error) {
  static std::mutex mu;
  static std::map<std::string, SSL_CTX*> contexts;
  std::lock_guard lock(mu);
  if (auto it = contexts.find(ca_file); it != contexts.end()) return it->second;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx || SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr) != 1) {
    *error = "cannot load the CA file " + ca_file;
    SSL_CTX_free(ctx);
    return nullptr;
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  static const unsigned char kAlpn[] = "\x08http/1.1";
  SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof kAlpn - 1);
  return contexts[ca_file] = ctx;
}

// Waits for what the last TLS call on `ssl` wants; false on an error or the deadline.
bool wait_tls(Link l, int rc, int64_t deadline) {
  switch (SSL_get_error(l.ssl, rc)) {
    case SSL_ERROR_WANT_READ: return wait_fd(l.fd, POLLIN, deadline) > 0;
    case SSL_ERROR_WANT_WRITE: return wait_fd(l.fd, POLLOUT, deadline) > 0;
    default: return false;
  }
}

// The TLS handshake on a connected socket; null + *error on failure.
SSL* tls_connect(int fd, const TlsOptions& o, int64_t deadline, std::string* error) {
  SSL_CTX* ctx = client_context(o.ca_file, error);
  if (!ctx) return nullptr;
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  SSL_set_tlsext_host_name(ssl, o.server_name.c_str());
  SSL_set1_host(ssl, o.server_name.c_str());
  for (;;) {
    const int rc = SSL_connect(ssl);
    if (rc == 1) return ssl;
    if (!wait_tls({fd, ssl}, rc, deadline)) break;
  }
  const long verify = SSL_get_verify_result(ssl);
  char reason[256] = "";
  ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
  ERR_clear_error();
  *error = std::string("TLS handshake failed: ") + reason +
           (verify != X509_V_OK ? std::string(" (") + X509_verify_cert_error_string(verify) + ")" : "");
  SSL_free(ssl);
  return nullptr;
}

bool send_all(Link l, const char* data, size_t len, int64_t deadline) {
  while (len > 0) {
    if (l.ssl) {
      size_t n = 0;
      const int rc = SSL_write_ex(l.ssl, data, len, &n);
      if (rc == 1) {
        data += n;
        len -= n;
      } else if (!wait_tls(l, rc, deadline)) {
        return false;
      }
      continue;
    }
    const ssize_t n = ::send(l.fd, data, len, MSG_NOSIGNAL);
    if (n > 0) {
      data += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const bool full = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    if (!full || wait_fd(l.fd, POLLOUT, deadline) <= 0) return false;
  }
  return true;
}

// Appends up to kReadChunk bytes. > 0 bytes read, 0 EOF, < 0 would block
// (-1) or failed (-2).
// Reads into an uninitialised chunk and appends what arrived: growing the
// string by a whole chunk first would zero 64 KiB per read, which was most of
// what the load tool spent reading thousands of small deliveries.
ssize_t read_some(Link l, std::string* buf) {
  char chunk[kReadChunk];
  ssize_t n;
  do {
    n = l.ssl ? tls_recv(l.ssl, chunk, kReadChunk) : ::recv(l.fd, chunk, kReadChunk, 0);
  } while (n < 0 && errno == EINTR);
  if (n > 0) buf->append(chunk, static_cast<size_t>(n));
  if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? -1 : -2;
  return n;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Value of the first header `name` in an HTTP head (status line + headers).
std::optional<std::string> header_value(std::string_view head, std::string_view name) {
  for (size_t pos = head.find("\r\n"); pos != std::string_view::npos;) {
    const size_t start = pos + 2;
    pos = head.find("\r\n", start);
    const std::string_view line = head.substr(start, pos - start);  // npos clamps
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && iequals(engine::trim(line.substr(0, colon), " \t"), name)) {
      return std::string(engine::trim(line.substr(colon + 1), " \t"));
    }
  }
  return std::nullopt;
}

bool contains_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (iequals(engine::trim(list.substr(0, comma), " \t"), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// Reads until the blank line ending an HTTP head; returns the offset just
// past it, or npos on timeout, EOF or an oversized head.
size_t read_head(Link l, std::string* buf, int64_t deadline) {
  size_t end;
  while ((end = buf->find("\r\n\r\n")) == std::string::npos) {
    if (buf->size() > kMaxHeadBytes) return std::string::npos;
    const ssize_t n = read_some(l, buf);
    if (n == 0 || n == -2) return std::string::npos;
    if (n == -1 && wait_fd(l.fd, POLLIN, deadline) <= 0) return std::string::npos;
  }
  return end + 4;
}

std::string random_key() {
  unsigned char raw[16];
  std::random_device rd;  // the key is a nonce, not a secret
  for (auto& b : raw) b = static_cast<unsigned char>(rd());
  return engine::encode_base64(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
}

}  // namespace

WsClient::WsClient(int fd) : fd_(fd), rng_(std::random_device{}()) {}

WsClient::~WsClient() {
  SSL_free(ssl_);
  if (fd_ >= 0) ::close(fd_);
}

ssize_t tls_recv(SSL* ssl, char* buf, size_t len) {
  size_t n = 0;
  const int rc = SSL_read_ex(ssl, buf, len, &n);
  if (rc == 1) return ssize_t(n);
  const int err = SSL_get_error(ssl, rc);
  ERR_clear_error();
  if (err == SSL_ERROR_ZERO_RETURN) return 0;
  errno = err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE ? EAGAIN : ECONNRESET;
  return -1;
}

std::unique_ptr<WsClient> WsClient::connect(const std::string& host, uint16_t port,
                                            std::string* error, const std::string& path,
                                            int timeout_ms, const TlsOptions* tls) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  const int64_t deadline = deadline_after(timeout_ms);
  const int fd = connect_tcp(host, port, deadline, error);
  if (fd < 0) return nullptr;
  std::unique_ptr<WsClient> client(new WsClient(fd));
  if (tls && !(client->ssl_ = tls_connect(fd, *tls, deadline, error))) return nullptr;
  const Link link{fd, client->ssl_};

  const std::string key = random_key();
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: " + host + ":" +
                              std::to_string(port) +
                              "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: " + key +
                              "\r\nSec-WebSocket-Version: 13\r\n\r\n";
  if (!send_all(link, request.data(), request.size(), deadline)) {
    *error = "sending the upgrade request failed";
    return nullptr;
  }

  std::string buf;
  const size_t body_start = read_head(link, &buf, deadline);
  if (body_start == std::string::npos) {
    *error = "no complete upgrade response (timeout or EOF); got: " + buf.substr(0, 256);
    return nullptr;
  }
  const std::string_view head(buf.data(), body_start - 2);  // keep the last CRLF
  const std::string_view status = head.substr(0, head.find("\r\n"));
  if (status.rfind("HTTP/1.1 101", 0) != 0) {
    *error = "upgrade refused: " + std::string(status);
    return nullptr;
  }
  const auto upgrade = header_value(head, "Upgrade");
  const auto connection = header_value(head, "Connection");
  const auto accept = header_value(head, "Sec-WebSocket-Accept");
  if (!upgrade || !iequals(*upgrade, "websocket") || !connection ||
      !contains_token(*connection, "upgrade")) {
    *error = "101 response lacks Upgrade: websocket / Connection: Upgrade";
    return nullptr;
  }
  if (!accept || *accept != ws::accept_key(key)) {
    *error = "bad Sec-WebSocket-Accept: " + accept.value_or("(missing)");
    return nullptr;
  }
  // The server may send frames right behind the 101; keep them.
  client->rx_.assign(buf, body_start);
  return client;
}

bool WsClient::send_raw(std::string_view bytes) {
  return fd_ >= 0 && send_all({fd_, ssl_}, bytes.data(), bytes.size(), deadline_after(kSendTimeoutMs));
}

bool WsClient::send_masked(ws::Opcode op, std::string_view payload, bool fin) {
  if (fd_ < 0 || sent_close_) return false;
  const uint32_t r = rng_();
  uint8_t mask[4];
  std::memcpy(mask, &r, 4);
  std::string frame(ws::kMaxHeaderBytes + payload.size(), '\0');
  auto* out = reinterpret_cast<uint8_t*>(frame.data());
  const size_t h = ws::encode_header(out, op, payload.size(), fin, mask);
  if (!payload.empty()) std::memcpy(out + h, payload.data(), payload.size());  // data() may be null
  ws::apply_mask(out + h, payload.size(), mask);
  frame.resize(h + payload.size());
  if (op == ws::Opcode::kClose) sent_close_ = true;  // nothing may follow a close
  return send_all({fd_, ssl_}, frame.data(), frame.size(), deadline_after(kSendTimeoutMs));
}

bool WsClient::fill(int64_t deadline) {
  for (;;) {
    if (peer_done_ || fd_ < 0) return false;
    // Read first and wait only when nothing is there: a reader woken by epoll
    // (the load tool) would otherwise pay a poll per read.
    const ssize_t n = read_some({fd_, ssl_}, &rx_);
    if (n > 0) return true;
    if (n == -1) {  // nothing there yet: a spent deadline needs no poll to say so
      if (remaining_ms(deadline) == 0 || wait_fd(fd_, POLLIN, deadline) <= 0) return false;
      continue;
    }
    peer_done_ = true;  // EOF or reset without a close frame
    if (close_code_ == 0) close_code_ = 1006;
    return false;
  }
}

void WsClient::end(uint16_t code, std::string_view reply, int shut_how) {
  if (!peer_done_ && !sent_close_) send_masked(ws::Opcode::kClose, reply, true);
  sent_close_ = peer_done_ = true;
  close_code_ = code;
  ::shutdown(fd_, shut_how);
}

void WsClient::fail(uint16_t code) { end(code, ws::close_payload(code), SHUT_RDWR); }

void WsClient::on_close_frame(const std::string& payload) {
  if (payload.size() == 1) return fail(1002);  // a code is 2 bytes or absent
  if (payload.empty()) return end(1005, {}, SHUT_WR);
  const auto code = static_cast<uint16_t>((static_cast<uint8_t>(payload[0]) << 8) |
                                          static_cast<uint8_t>(payload[1]));
  end(code, ws::close_payload(code), SHUT_WR);  // echo, as RFC 6455 5.5.1 asks
}

std::optional<WsClient::Frame> WsClient::recv_frame(int timeout_ms) {
  const int64_t deadline = deadline_after(timeout_ms);
  for (;;) {
    if (peer_done_) return std::nullopt;
    const auto* p = reinterpret_cast<const uint8_t*>(rx_.data()) + rx_off_;
    const size_t avail = rx_.size() - rx_off_;
    ws::FrameHeader h{};
    const ws::HeaderStatus st = ws::parse_header(p, avail, &h);
    const bool ok = st == ws::HeaderStatus::kOk;
    // Servers must not mask (RFC 6455 5.1); huge lengths would exhaust memory.
    if (!ok && st != ws::HeaderStatus::kNeedMore) {
      fail(1002);
      return std::nullopt;
    }
    if (ok && (h.masked || h.payload_len > kMaxFrameBytes)) {
      fail(h.masked ? 1002 : 1009);
      return std::nullopt;
    }
    if (ok && avail - h.header_len >= h.payload_len) {
      Frame f{h.opcode, h.fin,
              std::string(reinterpret_cast<const char*>(p) + h.header_len, h.payload_len)};
      rx_off_ += h.header_len + h.payload_len;
      if (rx_off_ == rx_.size() || rx_off_ > kReadChunk) {  // amortised compaction
        rx_.erase(0, rx_off_);
        rx_off_ = 0;
      }
      if (f.opcode == ws::Opcode::kClose) on_close_frame(f.payload);
      return f;
    }
    if (!fill(deadline)) return std::nullopt;
  }
}

std::optional<std::string> WsClient::finish(std::string message, bool text) {
  // Surfaces server bugs: a text message must be valid UTF-8.
  if (text && !ws::is_valid_utf8(message)) {
    fail(1007);
    return std::nullopt;
  }
  return message;
}

std::optional<std::string> WsClient::recv(int timeout_ms) {
  const int64_t deadline = deadline_after(timeout_ms);
  for (;;) {
    auto f = recv_frame(remaining_ms(deadline));
    if (!f) return std::nullopt;
    switch (f->opcode) {
      case ws::Opcode::kPing:
        if (auto_pong_) send_masked(ws::Opcode::kPong, f->payload, true);
        continue;
      case ws::Opcode::kPong:
        continue;
      case ws::Opcode::kClose:
        return std::nullopt;
      case ws::Opcode::kText:
      case ws::Opcode::kBinary:
        if (in_message_) break;  // new message inside a fragmented one
        partial_text_ = f->opcode == ws::Opcode::kText;
        if (f->fin) return finish(std::move(f->payload), partial_text_);
        in_message_ = true;
        partial_ = std::move(f->payload);
        continue;
      case ws::Opcode::kContinuation:
        if (!in_message_) break;
        partial_ += f->payload;
        if (!f->fin) continue;
        in_message_ = false;
        return finish(std::exchange(partial_, std::string()), partial_text_);
    }
    fail(1002);
    return std::nullopt;
  }
}

void WsClient::close(uint16_t code) {
  if (fd_ < 0) return;
  if (!sent_close_ && !peer_done_) send_masked(ws::Opcode::kClose, ws::close_payload(code), true);
  sent_close_ = true;
  ::shutdown(fd_, SHUT_WR);
}

std::optional<std::string> http_request(const std::string& host, uint16_t port,
                                        std::string_view raw_request, int timeout_ms,
                                        const TlsOptions* tls) {
  const int64_t deadline = deadline_after(timeout_ms);
  std::string error, resp;
  const int fd = connect_tcp(host, port, deadline, &error);
  if (fd < 0) return std::nullopt;
  SSL* ssl = tls ? tls_connect(fd, *tls, deadline, &error) : nullptr;
  const Link link{fd, ssl};
  auto done = [&](std::optional<std::string> answer) {
    SSL_free(ssl);
    ::close(fd);
    return answer;
  };
  if (tls && !ssl) return done(std::nullopt);
  const bool sent = send_all(link, raw_request.data(), raw_request.size(), deadline);
  const size_t body_start = sent ? read_head(link, &resp, deadline) : std::string::npos;
  if (body_start == std::string::npos) return done(std::nullopt);
  const std::string_view head(resp.data(), body_start - 2);
  const std::string_view status = head.substr(0, head.find("\r\n"));
  std::optional<size_t> want;  // body length, if known; else read to EOF
  if (raw_request.rfind("HEAD ", 0) == 0 || status.find(" 204") == 8 ||
      status.find(" 304") == 8) {
    want = 0;  // these responses never carry a body
  } else if (const auto cl = header_value(head, "Content-Length")) {
    want = std::strtoull(cl->c_str(), nullptr, 10);
  }
  for (;;) {
    if (want && resp.size() >= body_start + *want) {
      resp.resize(body_start + *want);
      break;
    }
    const ssize_t n = read_some(link, &resp);
    if (n == 0 || n == -2) break;  // EOF (or reset): the response ends here
    if (n == -1 && wait_fd(fd, POLLIN, deadline) <= 0) return done(std::nullopt);  // timed out before a complete response
  }
  return done(std::move(resp));
}

}  // namespace buzz::client
