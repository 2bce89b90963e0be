// A small blocking WebSocket client (plain POSIX sockets + poll) and a
// one-shot HTTP/1.1 helper. Used by the end-to-end tests and the load tool;
// never by the server. Framing comes from net/websocket.h.
// Invariants: every frame we send is masked (RFC 6455 client rule); a masked
// frame from the server is a protocol error that closes the client; no call
// blocks longer than its timeout; nothing throws.
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "net/websocket.h"

namespace buzz::client {

// A connection over TLS: the CA that signed the server's certificate (PEM),
// and the name that certificate must carry. Verified; ALPN http/1.1.
struct TlsOptions {
  std::string ca_file;
  std::string server_name = "localhost";
};

class WsClient {
 public:
  // Connects to host:port (IPv4 literal like 127.0.0.1) and performs the
  // HTTP/1.1 upgrade on `path` with a random Sec-WebSocket-Key, verifying the
  // 101 response and Sec-WebSocket-Accept. nullptr + *error on failure.
  // With `tls`, over TLS (wss://) after its handshake.
  static std::unique_ptr<WsClient> connect(const std::string& host,
                                           uint16_t port, std::string* error,
                                           const std::string& path = "/",
                                           int timeout_ms = 5000,
                                           const TlsOptions* tls = nullptr);
  ~WsClient();  // closes the fd (no close frame; call close() for that)
  WsClient(const WsClient&) = delete;
  WsClient& operator=(const WsClient&) = delete;

  // One masked text frame. False if the socket is closed or the write fails.
  bool send_text(std::string_view text) {
    return send_masked(net::ws::Opcode::kText, text, true);
  }
  // Masked frame with any opcode/fin, for fragmentation and ping tests.
  bool send_frame(net::ws::Opcode op, std::string_view payload, bool fin = true) {
    return send_masked(op, payload, fin);
  }
  // Raw bytes as-is, for malformed-frame tests.
  bool send_raw(std::string_view bytes);

  // Next complete data message (text or binary, fragments reassembled).
  // Pings are answered with pongs when auto-pong is on; pongs are dropped.
  // Returns nullopt on timeout or when the connection ended; then closed()
  // is true and close_code() says why: the server's code, 1005 if its close
  // frame had none, 1006 if TCP dropped without a close frame, 1002 if the
  // server broke the protocol (1007: invalid UTF-8 text, 1009: frame over
  // 256 MiB). A server close frame is echoed back.
  // timeout_ms < 0 waits forever. A message cut by a timeout is kept and
  // completed by the next call.
  std::optional<std::string> recv(int timeout_ms);

  struct Frame {
    net::ws::Opcode opcode;
    bool fin;
    std::string payload;
  };
  // Raw next frame including control frames; no auto-pong, no reassembly.
  // A close frame is still recorded (closed(), close_code()) and echoed.
  std::optional<Frame> recv_frame(int timeout_ms);

  void set_auto_pong(bool on) { auto_pong_ = on; }  // default true

  // True once the connection is over from our side: the server closed, TCP
  // dropped, a protocol error, or close() was called.
  bool closed() const { return peer_done_ || sent_close_; }
  // 0 until the server closes; see recv() for the values.
  uint16_t close_code() const { return close_code_; }
  int fd() const { return fd_; }
  // The TLS session over fd(), or null: a reader taking the socket over reads through it.
  SSL* ssl() const { return ssl_; }
  // Bytes read off the socket and not yet parsed: for a reader that takes the
  // socket over (load/delivery_reader.h).
  std::string_view buffered() const { return std::string_view(rx_).substr(rx_off_); }

  // Sends a close frame (best effort) and shuts down our sending side. The
  // server's close reply can still be read with recv()/recv_frame().
  void close(uint16_t code = 1000);

 private:
  explicit WsClient(int fd);

  bool send_masked(net::ws::Opcode op, std::string_view payload, bool fin);
  // Reads more bytes into rx_ until `deadline_ms` (absolute, steady clock
  // ms; < 0 means forever). False on timeout or connection end.
  bool fill(int64_t deadline_ms);
  // Sends `reply` as our close frame unless one went out already, records
  // `code` and shuts the socket down (SHUT_WR or SHUT_RDWR).
  void end(uint16_t code, std::string_view reply, int shut_how);
  // Closes the connection because the server misbehaved.
  void fail(uint16_t code);
  void on_close_frame(const std::string& payload);
  // Returns a completed data message; an invalid-UTF-8 text one fails 1007.
  std::optional<std::string> finish(std::string message, bool text);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool auto_pong_ = true;
  bool peer_done_ = false;   // close frame received, EOF, or error
  bool sent_close_ = false;  // we sent close / shut down writing
  uint16_t close_code_ = 0;
  std::string rx_;           // received, unparsed bytes are rx_[rx_off_..)
  size_t rx_off_ = 0;
  std::string partial_;      // fragments of an unfinished data message
  bool in_message_ = false;
  bool partial_text_ = false;
  std::mt19937 rng_;         // masking keys; need not be cryptographic here
};

// Sends an HTTP/1.1 request (raw text built by the caller) to host:port and
// returns the full raw response: status line, headers and body, reading
// Content-Length bytes or until EOF. nullopt on connect failure or timeout.
// With `tls`, over TLS (https://).
std::optional<std::string> http_request(const std::string& host, uint16_t port,
                                        std::string_view raw_request,
                                        int timeout_ms = 5000,
                                        const TlsOptions* tls = nullptr);

// Reads what `ssl` holds and its socket (non-blocking) has now, as recv(2)
// with MSG_DONTWAIT would: > 0 bytes, 0 at the end, < 0 with errno set
// (EAGAIN when nothing is there yet).
ssize_t tls_recv(SSL* ssl, char* buf, size_t len);

}  // namespace buzz::client
