// ApiTokens: bearer tokens for agents and scripts (rest-api.md §1.2).
//
// A token is `buzz_` + 64 hex of 32 random bytes, shown once at mint; only its
// SHA-256 is kept, in the api_tokens table, keyed by that hash. All tokens are
// also held in memory (a relay has few), so authenticating one is a hash and a
// map lookup. Revoked tokens stay, so a revoked one answers "token_revoked".
//
// Threads: every method is safe from any thread (one mutex; writes to the
// store are single small puts).
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/event_store.h"
#include "engine/hex.h"
#include "engine/result.h"

namespace buzz::engine {

using TokenHash = std::array<uint8_t, 32>;

inline constexpr std::string_view kTokenPrefix = "buzz_";
inline constexpr size_t kMaxActiveTokensPerOwner = 10;

struct ApiToken {
  std::string id;  // UUID
  TokenHash hash{};
  Pubkey owner{};
  std::string name;
  std::vector<std::string> scopes;                  // as minted; unknown strings grant nothing
  std::optional<std::vector<std::string>> channels;  // nullopt = every channel
  uint64_t created_at = 0;
  uint64_t expires_at = 0;  // 0 = never
  uint64_t last_used_at = 0;
  uint64_t revoked_at = 0;  // 0 = live
  Pubkey revoked_by{};
  bool self_minted = false;

  bool active(uint64_t now) const { return revoked_at == 0 && (expires_at == 0 || expires_at >= now); }
};

std::string encode_token(const ApiToken& t);
bool decode_token(std::string_view value, ApiToken* out);

// A fresh token string and its hash.
std::pair<std::string, TokenHash> generate_token();
TokenHash hash_token(std::string_view token);

enum class RevokeOutcome : uint8_t { kRevoked, kAlreadyRevoked, kNotFound };

class ApiTokens {
 public:
  explicit ApiTokens(EventStore& store) : store_(store) {}

  Status load();

  // The token with this hash, revoked and expired ones included.
  std::optional<ApiToken> find(const TokenHash& hash) const;
  // The owner's tokens, newest first.
  std::vector<ApiToken> owned_by(const Pubkey& owner) const;

  // Stores a new token unless its owner already has kMaxActiveTokensPerOwner
  // active ones (checked and inserted under one lock). False = limit reached.
  Result<bool> insert(const ApiToken& token, uint64_t now);
  Result<RevokeOutcome> revoke(std::string_view id, const Pubkey& owner, uint64_t now);
  // Revokes every active token of the owner; how many.
  Result<size_t> revoke_all(const Pubkey& owner, uint64_t now);
  // Records a use, at most once per `debounce` seconds per token.
  void touch(const TokenHash& hash, uint64_t now, uint64_t debounce = 300);

 private:
  Status put(const ApiToken& t);

  EventStore& store_;
  mutable std::mutex mu_;
  std::unordered_map<TokenHash, ApiToken, KeyBytesHash> by_hash_;
};

}  // namespace buzz::engine
