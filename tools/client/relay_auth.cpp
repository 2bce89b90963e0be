// NIP-42 and NIP-98 as a client signs them; see relay_auth.h.
#include "tools/client/relay_auth.h"

#include <utility>
#include <vector>

#include "engine/base64.h"
#include "engine/canonical.h"
#include "engine/hex.h"
#include "engine/kind_numbers.h"

namespace buzz::client {

engine::Event auth_event(const engine::Keypair& key, const std::string& relay_url, const std::string& challenge,
                         const std::string& token, uint64_t created_at) {
  std::vector<engine::Tag> tags = {{"relay", relay_url}, {"challenge", challenge}};
  if (!token.empty()) tags.push_back({"auth_token", token});
  return engine::signed_event(key, kind::kAuth, created_at, std::move(tags));
}

std::string nip98_authorization(const engine::Keypair& key, const std::string& url, const std::string& method,
                                const std::string& body) {
  uint8_t nonce[8];
  engine::random_bytes(nonce, sizeof nonce);
  std::vector<engine::Tag> tags = {{"u", url}, {"method", method}, {"payload", engine::sha256_hex(body)},
                                   {"nonce", engine::to_hex(nonce, sizeof nonce)}};
  return "Nostr " + engine::encode_base64(engine::signed_event(key, kind::kHttpAuth, engine::unix_now(), std::move(tags)).raw);
}

}  // namespace buzz::client
