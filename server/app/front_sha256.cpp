// engine::sha256 (engine/canonical.h) for the front binary alone, from
// Debian's libnettle, so that an agent command, which hashes an event or a
// NIP-98 body or two, maps no libcrypto: loading libcrypto and starting its
// default provider cost more CPU than the rest of a loopback `buzz
// send-message` past start-up (docs/performance.md, CLI start-up), while
// libnettle is one small object with few relocations. The relay and every
// other program keep OpenSSL's (engine/sha256.cpp). Checked against OpenSSL
// (tests/server/app/front_sha256_test.cpp).
#include <nettle/sha2.h>

#include "engine/canonical.h"

namespace buzz::engine {

void sha256(const void* data, size_t len, uint8_t out[32]) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, len, static_cast<const uint8_t*>(data));
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

}  // namespace buzz::engine
