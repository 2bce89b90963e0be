// ApiTokens: bearer tokens for agents and scripts (docs/reference/rest-api.md §1.2).
//
// A token is `buzz_` + 64 hex of 32 random bytes, shown once at mint; only its
// SHA-256 is kept, in the api_tokens table, keyed by that hash. Revoked tokens
// stay, so a revoked one answers "token_revoked".
//
// Nothing is held in memory: every lookup reads the store (a point read by
// hash; a relay has few tokens, so listing one owner's is a scan). Several
// nodes share one PostgreSQL store, and a token revoked on one of them must
// fail on every other at its next use, not at the next restart. Changes to a
// token's record go through update_state, so a touch on one node never writes
// back as live a token that another node revoked in between.
//
// Threads: every method is safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
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

  // Every stored record decodes (checked at start-up, so a damaged table is
  // named then rather than answering "invalid_token" later).
  Status check() const;

  // The token with this hash, revoked and expired ones included; nullopt when
  // there is none, an error when the store could not be read (a database
  // that went away is not an invalid token).
  Result<std::optional<ApiToken>> find(const TokenHash& hash) const;
  // The owner's tokens, newest first.
  Result<std::vector<ApiToken>> owned_by(const Pubkey& owner) const;

  // Stores a new token unless its owner already has kMaxActiveTokensPerOwner
  // active ones (counted and inserted under one lock, across the nodes that
  // share the store too).
  // False = limit reached.
  Result<bool> insert(const ApiToken& token, uint64_t now);
  Result<RevokeOutcome> revoke(std::string_view id, const Pubkey& owner, uint64_t now);
  // Revokes every active token of the owner; how many.
  Result<size_t> revoke_all(const Pubkey& owner, uint64_t now);
  // Records a use of the token just found, at most once per `debounce` seconds.
  void touch(const ApiToken& token, uint64_t now, uint64_t debounce = 300);

 private:
  // Every stored token, in hash order.
  Result<std::vector<ApiToken>> all() const;
  // Marks the token revoked unless it already is; whether this call did.
  Result<bool> revoke_one(const TokenHash& hash, const Pubkey& by, uint64_t now);

  EventStore& store_;
  std::mutex insert_mu_;  // the count-then-insert of one node
};

}  // namespace buzz::engine
