// Fuzz target: the TLS record path of a loop's connection (net/tls.h), the
// bytes a peer sends before and after the handshake, cut where the input says
// (as TCP may deliver them).
//
// The first byte picks the mode and the second the cut size:
// - raw: the rest goes to a fresh server session as it is (a ClientHello, or
//   anything), in cuts; the session may refuse it, never crash, and whatever
//   it writes back is whole TLS records;
// - after a handshake with an in-memory client: the client encrypts the rest
//   as application data, its records reach the session in cuts, and the
//   plaintext out is exactly the plaintext in; a record flipped at one byte
//   ends the session.
// Invariants beyond "no crash": the above, and plain_len never past the buffer.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "net/tls.h"
#include "tests/fuzz/fuzz_check.h"

using namespace buzz::net;

namespace {

// A self-signed certificate for the session, written once to temp files.
const TlsCertificate& certificate() {
  static const TlsCertificate* cert = [] {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* x = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("fuzz"), -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509_sign(x, key, EVP_sha256());
    const std::string base = "/tmp/buzz-tls-fuzz-" + std::to_string(::getpid());
    FILE* f = std::fopen((base + ".pem").c_str(), "w");
    PEM_write_X509(f, x);
    std::fclose(f);
    f = std::fopen((base + ".key").c_str(), "w");
    PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
    std::fclose(f);
    X509_free(x);
    EVP_PKEY_free(key);
    auto* c = new TlsCertificate(base + ".pem", base + ".key");
    std::remove((base + ".pem").c_str());
    std::remove((base + ".key").c_str());
    return c;
  }();
  return *cert;
}

// Every byte of `out` belongs to a whole record of a known type and version.
bool whole_records(const std::string& out) {
  size_t at = 0;
  while (at + 5 <= out.size()) {
    const auto* r = reinterpret_cast<const uint8_t*>(out.data() + at);
    if (r[0] < 20 || r[0] > 23 || r[1] != 3 || r[2] > 4) return false;
    at += 5 + (size_t(r[3]) << 8 | r[4]);
  }
  return at == out.size();
}

// Feeds `bytes` to the session in cuts of `cut`; appends the plaintext.
bool feed(TlsSession& s, const std::string& bytes, size_t cut, std::string* plain) {
  std::string buffer;
  for (size_t at = 0; at < bytes.size(); at += cut) {
    size_t n = 0;
    const bool open = s.receive(bytes.data() + at, std::min(cut, bytes.size() - at), &buffer, &n);
    FUZZ_CHECK(n <= buffer.size());
    plain->append(buffer, 0, n);
    if (!open) return false;
  }
  return true;
}

// Client-side bytes written since the last call.
std::string drain(BIO* b) {
  std::string out(size_t(BIO_ctrl_pending(b)), '\0');
  if (!out.empty()) BIO_read(b, out.data(), int(out.size()));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const bool raw = data[0] & 1;
  const size_t cut = size_t(data[1]) * 7 + 1;
  const std::string input(reinterpret_cast<const char*>(data + 2), size - 2);
  TlsSession server(certificate());
  std::string plain;
  if (raw) {
    feed(server, input, cut, &plain);
    FUZZ_CHECK(whole_records(server.take_output()));
    return 0;
  }
  static SSL_CTX* client_ctx = SSL_CTX_new(TLS_client_method());
  std::unique_ptr<SSL, decltype(&SSL_free)> client(SSL_new(client_ctx), SSL_free);
  BIO* to_client = BIO_new(BIO_s_mem());
  BIO* from_client = BIO_new(BIO_s_mem());
  SSL_set_bio(client.get(), to_client, from_client);
  SSL_set_connect_state(client.get());
  for (int round = 0; round < 4 && !SSL_is_init_finished(client.get()); ++round) {
    SSL_do_handshake(client.get());
    FUZZ_CHECK(feed(server, drain(from_client), cut, &plain));
    const std::string back = server.take_output();
    FUZZ_CHECK(whole_records(back));
    BIO_write(to_client, back.data(), int(back.size()));
  }
  SSL_do_handshake(client.get());
  FUZZ_CHECK(SSL_is_init_finished(client.get()));
  FUZZ_CHECK(feed(server, drain(from_client), cut, &plain));  // the client's Finished
  FUZZ_CHECK(plain.empty());
  if (!input.empty()) SSL_write(client.get(), input.data(), int(input.size()));
  std::string records = drain(from_client);
  const bool flip = data[0] & 2;
  if (flip && !records.empty()) records[size_t(data[1]) % records.size()] ^= 0x20;
  const bool open = feed(server, records, cut, &plain);
  if (!flip) FUZZ_CHECK(open && plain == input);
  // A flipped byte in a record's header or body: refused (a length flipped up may just wait for more).
  if (flip && !records.empty()) FUZZ_CHECK(plain.size() < input.size() || !open || plain != input);
  return 0;
}
