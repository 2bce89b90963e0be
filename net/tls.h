// TLS on the loops' own sockets (docs/tls.md): a certificate and key loaded
// into an OpenSSL context (TlsCertificate, replaced whole by a reload), and one
// TlsSession per connection that the loop feeds with the bytes it received and
// asks for the bytes to write. OpenSSL never touches the socket: a session's
// BIO reads from the receive buffer the loop hands it and appends to a string
// the loop then writes, so the ring does all the I/O. An idle session keeps no
// buffer (SSL_MODE_RELEASE_BUFFERS, and its output string moves to the send).
#pragma once

#include <openssl/types.h>

#include <cstddef>
#include <mutex>
#include <string>

namespace buzz::net {

class TlsCertificate {
 public:
  // Loads the PEM chain (leaf first) and its key; throws std::runtime_error
  // naming the file and what is wrong with it.
  TlsCertificate(std::string cert_path, std::string key_path);
  ~TlsCertificate();
  TlsCertificate(const TlsCertificate&) = delete;
  TlsCertificate& operator=(const TlsCertificate&) = delete;

  // Any thread: reads both files again. New handshakes use them from now on;
  // sessions already open keep theirs. On failure nothing changes and the
  // error is returned (empty = reloaded).
  std::string reload();

  const std::string& cert_path() const { return cert_path_; }

 private:
  friend class TlsSession;
  // Any thread: a new SSL on the current context.
  SSL* new_ssl() const;

  std::string cert_path_;
  std::string key_path_;
  mutable std::mutex mu_;
  SSL_CTX* ctx_ = nullptr;  // under mu_; each SSL holds its own reference
};

// One connection's TLS, server side. Loop thread only; not movable (its BIO
// points at it).
class TlsSession {
 public:
  explicit TlsSession(const TlsCertificate& cert);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // Takes `len` bytes from the peer (the handshake, records, alerts); the
  // plaintext they complete is written to *plain from its start (grown when
  // needed, never shrunk) and its length to *plain_len. False once the
  // session is over: a TLS error, or the peer's close_notify. The plaintext
  // before it is still returned.
  bool receive(const char* data, size_t len, std::string* plain, size_t* plain_len);
  // Encrypts `len` bytes of plaintext into the output. False before the
  // handshake is done, or on an error.
  bool send(const char* data, size_t len);
  // Queues a close_notify (once).
  void close_notify();
  // Ciphertext waiting to be written: handshake messages, records, alerts.
  bool has_output() const { return !out_.empty(); }
  std::string take_output() { return std::move(out_); }

  // For the BIO (tls.cpp).
  int bio_read(char* buf, int len);
  int bio_write(const char* buf, int len);

 private:
  SSL* ssl_;
  const char* in_ = nullptr;  // received bytes not yet read by OpenSSL, during receive()
  size_t in_len_ = 0;
  std::string out_;
  bool notified_ = false;
};

}  // namespace buzz::net
