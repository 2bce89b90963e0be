// OpenSSL behind the loops: the context a certificate makes, and a session's
// BIO over the loop's buffers. See tls.h and docs/tls.md.
#include "net/tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509err.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace buzz::net {
namespace {

// Mozilla's "intermediate" TLS 1.2 suites: forward secret AEADs only. TLS 1.3
// keeps OpenSSL's default suites, all of them modern.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// OpenSSL's reasons since the last call, oldest first, cleared.
std::string openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown error" : out;
}

// The file must exist and be readable before OpenSSL's reason makes sense.
void check_readable(const char* what, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) throw std::runtime_error(std::string("cannot read the TLS ") + what + " " + path + ": " + std::strerror(errno));
  std::fclose(f);
}

// The client's ALPN list must offer http/1.1 (all WebSocket and HTTP/1.1
// clients do); a client offering none gets no ALPN answer.
int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned inlen, void*) {
  static const unsigned char kHttp11[] = "\x08http/1.1";
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11 - 1, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

SSL_CTX* make_context(const std::string& cert_path, const std::string& key_path) {
  check_readable("certificate", cert_path);
  check_readable("key", key_path);
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) throw std::runtime_error("SSL_CTX_new: " + openssl_errors());
  auto refuse = [ctx](const std::string& why) {
    SSL_CTX_free(ctx);
    return std::runtime_error(why + ": " + openssl_errors());
  };
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_path.c_str()) != 1) {
    throw refuse("cannot load the TLS certificate chain from " + cert_path + " (PEM, leaf first)");
  }
  const std::string mismatch = "the TLS private key " + key_path + " does not match the certificate " + cert_path;
  if (SSL_CTX_use_PrivateKey_file(ctx, key_path.c_str(), SSL_FILETYPE_PEM) != 1) {
    const bool other_key = ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    throw refuse(other_key ? mismatch : "cannot load the TLS private key from " + key_path + " (PEM)");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) throw refuse(mismatch);
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_cipher_list(ctx, kTls12Ciphers);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
  // No per-connection buffers while idle; records may be written from a
  // buffer that moved (the loop's staging string).
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Resumption by stateless ticket only: the server keeps no session cache.
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx, 1);
  SSL_CTX_set_alpn_select_cb(ctx, select_alpn, nullptr);
  return ctx;
}

int bio_write(BIO* b, const char* buf, int len) { return static_cast<TlsSession*>(BIO_get_data(b))->bio_write(buf, len); }
int bio_read(BIO* b, char* buf, int len) { return static_cast<TlsSession*>(BIO_get_data(b))->bio_read(buf, len); }
long bio_ctrl(BIO*, int cmd, long, void*) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }

const BIO_METHOD* loop_bio_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "buzz loop");
    BIO_meth_set_write(m, bio_write);
    BIO_meth_set_read(m, bio_read);
    BIO_meth_set_ctrl(m, bio_ctrl);
    return m;
  }();
  return method;
}

}  // namespace

TlsCertificate::TlsCertificate(std::string cert_path, std::string key_path)
    : cert_path_(std::move(cert_path)), key_path_(std::move(key_path)), ctx_(make_context(cert_path_, key_path_)) {}

TlsCertificate::~TlsCertificate() { SSL_CTX_free(ctx_); }

std::string TlsCertificate::reload() {
  SSL_CTX* fresh;
  try {
    fresh = make_context(cert_path_, key_path_);
  } catch (const std::exception& e) {
    return e.what();
  }
  std::lock_guard lock(mu_);
  SSL_CTX_free(ctx_);  // sessions on it hold their own reference
  ctx_ = fresh;
  return {};
}

SSL* TlsCertificate::new_ssl() const {
  std::lock_guard lock(mu_);
  return SSL_new(ctx_);
}

TlsSession::TlsSession(const TlsCertificate& cert) : ssl_(cert.new_ssl()) {
  if (!ssl_) throw std::runtime_error("SSL_new: " + openssl_errors());
  BIO* bio = BIO_new(loop_bio_method());
  BIO_set_data(bio, this);
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl_, bio, bio);  // one reference, owned by the SSL
  SSL_set_accept_state(ssl_);
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

int TlsSession::bio_read(char* buf, int len) {
  BIO* b = SSL_get_rbio(ssl_);
  BIO_clear_retry_flags(b);
  if (in_len_ == 0) {
    BIO_set_retry_read(b);
    return -1;
  }
  const size_t n = std::min(in_len_, size_t(len));
  std::memcpy(buf, in_, n);
  in_ += n;
  in_len_ -= n;
  return int(n);
}

int TlsSession::bio_write(const char* buf, int len) {
  out_.append(buf, size_t(len));
  return len;
}

bool TlsSession::receive(const char* data, size_t len, std::string* plain, size_t* plain_len) {
  in_ = data;
  in_len_ = len;
  size_t have = 0;
  bool ok = true;
  for (;;) {
    if (plain->size() - have < 4096) plain->resize(std::max<size_t>(plain->size() * 2, 16384));
    size_t n = 0;
    if (SSL_read_ex(ssl_, plain->data() + have, plain->size() - have, &n) == 1) {
      have += n;
      continue;
    }
    const int err = SSL_get_error(ssl_, 0);
    ok = err == SSL_ERROR_WANT_READ;  // everything given is read; anything else ends the session
    if (!ok) ERR_clear_error();
    break;
  }
  in_ = nullptr;
  in_len_ = 0;
  *plain_len = have;
  return ok;
}

bool TlsSession::send(const char* data, size_t len) {
  if (!SSL_is_init_finished(ssl_)) return false;
  size_t written = 0;
  if (SSL_write_ex(ssl_, data, len, &written) == 1 && written == len) return true;
  ERR_clear_error();
  return false;
}

void TlsSession::close_notify() {
  if (notified_) return;
  notified_ = true;
  if (SSL_is_init_finished(ssl_)) SSL_shutdown(ssl_);
  ERR_clear_error();
}

}  // namespace buzz::net
