// engine::sha256 (canonical.h), over OpenSSL. A file of its own: the small
// `buzz` binary links its own definition instead (server/app/front_sha256.cpp),
// so that an agent command maps no libcrypto; kept out of unity batches
// (engine/CMakeLists.txt) so that no other definition comes with it.
#include <openssl/evp.h>

#include <cstdlib>

#include "engine/canonical.h"

namespace buzz::engine {

// OpenSSL 3's one-shot SHA256() looks the algorithm up (a locked fetch) on every
// call; the id of every ingested event is one call, so each thread keeps a
// fetched algorithm and a context to reuse.
void sha256(const void* data, size_t len, uint8_t out[32]) {
  struct Hasher {
    EVP_MD* md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Hasher() {
      EVP_MD_CTX_free(ctx);
      EVP_MD_free(md);
    }
  };
  thread_local Hasher h;
  unsigned int n = 0;
  bool ok = h.md && h.ctx && EVP_DigestInit_ex2(h.ctx, h.md, nullptr) == 1 &&
            EVP_DigestUpdate(h.ctx, data, len) == 1 && EVP_DigestFinal_ex(h.ctx, out, &n) == 1 && n == 32;
  if (!ok) std::abort();  // only when OpenSSL cannot allocate or lacks SHA-256 altogether
}

}  // namespace buzz::engine
