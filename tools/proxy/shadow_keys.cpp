#include "tools/proxy/shadow_keys.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace buzz::proxy {

engine::Result<engine::Keypair> derive_shadow_key(const std::vector<uint8_t>& salt, std::string_view pubkey_hex) {
  if (salt.empty()) return engine::Error{"shadow key derivation failed: shadow key salt must not be empty"};
  engine::Pubkey raw{};
  if (pubkey_hex.size() != 64) {
    return engine::Error{"invalid external pubkey: expected 32 bytes (64 hex characters), got " +
                         std::to_string(pubkey_hex.size()) + " characters"};
  }
  if (!engine::from_hex_any_case(pubkey_hex, raw.data(), raw.size())) {
    return engine::Error{"invalid external pubkey: not hex"};
  }
  engine::SecretKey secret{};
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), salt.data(), int(salt.size()), raw.data(), raw.size(), secret.data(), &len) ||
      len != secret.size()) {
    return engine::Error{"shadow key derivation failed: HMAC-SHA256 failed"};
  }
  auto key = engine::keypair_from_secret(secret);
  if (!key) return engine::Error{"shadow key derivation failed: the HMAC output is not a valid secret key"};
  return *key;
}

engine::Result<ShadowKeys> ShadowKeys::create(std::vector<uint8_t> salt) {
  if (salt.empty()) return engine::Error{"shadow key derivation failed: shadow key salt must not be empty"};
  return ShadowKeys(std::move(salt));
}

engine::Result<engine::Keypair> ShadowKeys::of(std::string_view pubkey_hex, bool guest) {
  std::string key(pubkey_hex);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    auto derived = derive_shadow_key(salt_, pubkey_hex);
    if (!derived) return derived;
    // Keys can always be derived again, so a full cache is simply emptied (§7.2).
    if (cache_.size() >= kMaxEntries) cache_.clear();
    it = cache_.emplace(key, *derived).first;
  }
  if (guest) {
    if (external_.size() >= kMaxEntries) external_.clear();
    external_[engine::to_hex(it->second.pubkey)] = std::move(key);
  }
  return it->second;
}

const std::string* ShadowKeys::external_of(const std::string& shadow_hex) const {
  auto it = external_.find(shadow_hex);
  return it == external_.end() ? nullptr : &it->second;
}

}  // namespace buzz::proxy
