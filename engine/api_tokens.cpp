// API tokens: the record encoding and the in-memory registry; see api_tokens.h.
//
// Record (big-endian): u8 version | id | owner[32] | name | u16 nscopes
// { scope } | u8 has_channels [u16 n { channel }] | created u64 | expires u64 |
// last_used u64 | revoked u64 | revoked_by[32] | u8 self_minted, where each
// string is u16 length + bytes. The hash is the key, not repeated here.
#include "engine/api_tokens.h"

#include <algorithm>
#include <cstring>

#include "engine/canonical.h"
#include "engine/event_record.h"
#include "engine/signature.h"

namespace buzz::engine {
namespace {

constexpr uint8_t kTokenRecordVersion = 1;

void put_str16(std::string* out, std::string_view s) {
  put_u16(out, uint16_t(s.size()));
  out->append(s);
}

// A bounds-checked reader over a record.
struct TokenReader {
  std::string_view in;
  bool ok = true;

  const char* take(size_t n) {
    if (!ok || in.size() < n) {
      ok = false;
      return nullptr;
    }
    const char* p = in.data();
    in.remove_prefix(n);
    return p;
  }
  uint8_t u8() { const char* p = take(1); return p ? uint8_t(*p) : 0; }
  uint16_t u16() { const char* p = take(2); return p ? get_u16(p) : 0; }
  uint64_t u64() { const char* p = take(8); return p ? get_u64(p) : 0; }
  std::string str() {
    uint16_t n = u16();
    const char* p = take(n);
    return p ? std::string(p, n) : std::string();
  }
  void bytes(uint8_t* out, size_t n) {
    if (const char* p = take(n)) std::memcpy(out, p, n);
  }
};

}  // namespace

std::string encode_token(const ApiToken& t) {
  std::string out(1, char(kTokenRecordVersion));
  put_str16(&out, t.id);
  out.append(reinterpret_cast<const char*>(t.owner.data()), 32);
  put_str16(&out, t.name);
  put_u16(&out, uint16_t(t.scopes.size()));
  for (const std::string& s : t.scopes) put_str16(&out, s);
  out.push_back(t.channels ? 1 : 0);
  if (t.channels) {
    put_u16(&out, uint16_t(t.channels->size()));
    for (const std::string& c : *t.channels) put_str16(&out, c);
  }
  put_u64(&out, t.created_at);
  put_u64(&out, t.expires_at);
  put_u64(&out, t.last_used_at);
  put_u64(&out, t.revoked_at);
  out.append(reinterpret_cast<const char*>(t.revoked_by.data()), 32);
  out.push_back(t.self_minted ? 1 : 0);
  return out;
}

bool decode_token(std::string_view value, ApiToken* out) {
  TokenReader r{value};
  if (r.u8() != kTokenRecordVersion) return false;
  out->id = r.str();
  r.bytes(out->owner.data(), 32);
  out->name = r.str();
  out->scopes.resize(r.u16());
  for (std::string& s : out->scopes) s = r.str();
  out->channels.reset();
  if (r.u8()) {
    out->channels.emplace(r.u16());
    for (std::string& c : *out->channels) c = r.str();
  }
  out->created_at = r.u64();
  out->expires_at = r.u64();
  out->last_used_at = r.u64();
  out->revoked_at = r.u64();
  r.bytes(out->revoked_by.data(), 32);
  out->self_minted = r.u8() != 0;
  return r.ok && r.in.empty();
}

TokenHash hash_token(std::string_view token) {
  TokenHash h;
  sha256(token.data(), token.size(), h.data());
  return h;
}

std::pair<std::string, TokenHash> generate_token() {
  uint8_t secret[32];
  random_bytes(secret, sizeof secret);
  std::string token = std::string(kTokenPrefix) + to_hex(secret, sizeof secret);
  return {token, hash_token(token)};
}

namespace {

std::string_view key_of(const TokenHash& hash) { return {reinterpret_cast<const char*>(hash.data()), hash.size()}; }

bool decode_record(std::string_view key, std::string_view value, ApiToken* out) {
  if (key.size() != 32 || !decode_token(value, out)) return false;
  std::memcpy(out->hash.data(), key.data(), 32);
  return true;
}

}  // namespace

Result<std::vector<ApiToken>> ApiTokens::all() const {
  std::vector<ApiToken> out;
  std::string bad;
  Status s = store_.scan_state(StateTable::kApiTokens, [&](std::string_view key, std::string_view value) {
    ApiToken t;
    if (decode_record(key, value, &t)) {
      out.push_back(std::move(t));
    } else if (bad.empty()) {
      bad = to_hex(reinterpret_cast<const uint8_t*>(key.data()), std::min<size_t>(key.size(), 32));
    }
  });
  if (!s) return Error{s.error()};
  if (!bad.empty()) return Error{"error: unreadable API token record " + bad};
  return out;
}

Status ApiTokens::check() const {
  auto tokens = all();
  if (!tokens) return Error{tokens.error()};
  return {};
}

Result<std::optional<ApiToken>> ApiTokens::find(const TokenHash& hash) const {
  // A prefix scan of the whole key, not get_state: it tells a read that failed from a key that is absent.
  std::optional<ApiToken> found;
  bool damaged = false;
  Status s = store_.scan_state_prefix(StateTable::kApiTokens, key_of(hash), [&](std::string_view key, std::string_view value) {
    ApiToken t;
    if (decode_record(key, value, &t)) found = std::move(t);
    else damaged = true;
  });
  if (!s) return Error{s.error()};
  if (damaged) return Error{"error: unreadable API token record " + to_hex(hash)};
  return found;
}

Result<std::vector<ApiToken>> ApiTokens::owned_by(const Pubkey& owner) const {
  auto tokens = all();
  if (!tokens) return tokens;
  std::erase_if(*tokens, [&](const ApiToken& t) { return t.owner != owner; });
  std::sort(tokens->begin(), tokens->end(), [](const ApiToken& a, const ApiToken& b) {
    return a.created_at != b.created_at ? a.created_at > b.created_at : a.id < b.id;
  });
  return tokens;
}

Result<bool> ApiTokens::insert(const ApiToken& token, uint64_t now) {
  std::lock_guard lock(insert_mu_);
  bool inserted = false;
  Status s = store_.with_table_lock(StateTable::kApiTokens, [&]() -> Status {
    auto tokens = all();
    if (!tokens) return Error{tokens.error()};
    size_t active = size_t(std::count_if(tokens->begin(), tokens->end(),
                                         [&](const ApiToken& t) { return t.owner == token.owner && t.active(now); }));
    if (active >= kMaxActiveTokensPerOwner) return {};
    if (Status put = store_.put_state(StateTable::kApiTokens, key_of(token.hash), encode_token(token)); !put) return put;
    inserted = true;
    return {};
  });
  if (!s) return Error{s.error()};
  return inserted;
}

Result<bool> ApiTokens::revoke_one(const TokenHash& hash, const Pubkey& by, uint64_t now) {
  bool revoked = false;
  Status s = store_.update_state(StateTable::kApiTokens, key_of(hash), [&](const std::optional<std::string>& value) {
    ApiToken t;
    std::optional<std::string> next;
    if (value && decode_record(key_of(hash), *value, &t) && !t.revoked_at) {
      t.revoked_at = now;
      t.revoked_by = by;
      next = encode_token(t);
    }
    revoked = next.has_value();
    return next;
  });
  if (!s) return Error{s.error()};
  return revoked;
}

Result<RevokeOutcome> ApiTokens::revoke(std::string_view id, const Pubkey& owner, uint64_t now) {
  auto tokens = owned_by(owner);
  if (!tokens) return Error{tokens.error()};
  for (const ApiToken& t : *tokens) {
    if (t.id != id) continue;
    auto revoked = revoke_one(t.hash, owner, now);
    if (!revoked) return Error{revoked.error()};
    return *revoked ? RevokeOutcome::kRevoked : RevokeOutcome::kAlreadyRevoked;
  }
  return RevokeOutcome::kNotFound;
}

Result<size_t> ApiTokens::revoke_all(const Pubkey& owner, uint64_t now) {
  auto tokens = owned_by(owner);
  if (!tokens) return Error{tokens.error()};
  size_t n = 0;
  for (const ApiToken& t : *tokens) {
    if (!t.active(now)) continue;
    auto revoked = revoke_one(t.hash, owner, now);
    if (!revoked) return Error{revoked.error()};
    n += *revoked;
  }
  return n;
}

void ApiTokens::touch(const ApiToken& token, uint64_t now, uint64_t debounce) {
  if (now < token.last_used_at + debounce) return;
  // Best effort: last_used_at is informational.
  (void)store_.update_state(StateTable::kApiTokens, key_of(token.hash), [&](const std::optional<std::string>& value) {
    ApiToken t;
    std::optional<std::string> next;
    if (value && decode_record(key_of(token.hash), *value, &t) && !t.revoked_at && now >= t.last_used_at + debounce) {
      t.last_used_at = now;
      next = encode_token(t);
    }
    return next;
  });
}

}  // namespace buzz::engine
