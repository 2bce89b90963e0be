// Shadow keys (docs/reference/proxy.md §7): every event the proxy translates is re-signed
// with a deterministic key derived from its author's pubkey,
//   secret = HMAC-SHA256(key = salt, message = the 32 raw pubkey bytes),
// so the same salt and pubkey give the same identity across restarts and
// instances, and neither side ever sees the other's real keys.
// Loop thread only (not thread-safe).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/result.h"
#include "engine/signature.h"

namespace buzz::proxy {

// The derivation alone. Errors carry the spec's text: "invalid external
// pubkey: …" or "shadow key derivation failed: …".
engine::Result<engine::Keypair> derive_shadow_key(const std::vector<uint8_t>& salt, std::string_view pubkey_hex);

class ShadowKeys {
 public:
  static constexpr size_t kMaxEntries = 10000;  // then the whole cache is cleared (§7.2)

  // Fails on an empty salt: "shadow key derivation failed: shadow key salt must not be empty".
  static engine::Result<ShadowKeys> create(std::vector<uint8_t> salt);

  // The shadow keypair of a pubkey (hex as given), cached. `guest`: the
  // pubkey is a client's (inbound), remembered for external_of.
  engine::Result<engine::Keypair> of(std::string_view pubkey_hex, bool guest = false);

  // The external pubkey whose shadow is `shadow_hex`, if this process derived
  // it for an inbound event (a guest): outbound events can then name the guest.
  const std::string* external_of(const std::string& shadow_hex) const;
  size_t size() const { return cache_.size(); }

 private:
  explicit ShadowKeys(std::vector<uint8_t> salt) : salt_(std::move(salt)) {}

  std::vector<uint8_t> salt_;
  std::unordered_map<std::string, engine::Keypair> cache_;
  std::unordered_map<std::string, std::string> external_;  // shadow pubkey hex → external pubkey hex
};

}  // namespace buzz::proxy
