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

void put_str(std::string* out, std::string_view s) {
  put_u16(out, uint16_t(s.size()));
  out->append(s);
}

// A bounds-checked reader over a record.
struct Reader {
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
  put_str(&out, t.id);
  out.append(reinterpret_cast<const char*>(t.owner.data()), 32);
  put_str(&out, t.name);
  put_u16(&out, uint16_t(t.scopes.size()));
  for (const std::string& s : t.scopes) put_str(&out, s);
  out.push_back(t.channels ? 1 : 0);
  if (t.channels) {
    put_u16(&out, uint16_t(t.channels->size()));
    for (const std::string& c : *t.channels) put_str(&out, c);
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
  Reader r{value};
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

Status ApiTokens::load() {
  std::lock_guard lock(mu_);
  by_hash_.clear();
  std::string bad;
  Status s = store_.scan_state(StateTable::kApiTokens, [&](std::string_view key, std::string_view value) {
    ApiToken t;
    if (key.size() != 32 || !decode_token(value, &t)) {
      bad = to_hex(reinterpret_cast<const uint8_t*>(key.data()), std::min<size_t>(key.size(), 32));
      return;
    }
    std::memcpy(t.hash.data(), key.data(), 32);
    by_hash_.emplace(t.hash, std::move(t));
  });
  if (!s) return s;
  if (!bad.empty()) return Error{"error: unreadable API token record " + bad};
  return {};
}

std::optional<ApiToken> ApiTokens::find(const TokenHash& hash) const {
  std::lock_guard lock(mu_);
  auto it = by_hash_.find(hash);
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

std::vector<ApiToken> ApiTokens::owned_by(const Pubkey& owner) const {
  std::vector<ApiToken> out;
  {
    std::lock_guard lock(mu_);
    for (const auto& [hash, t] : by_hash_) {
      if (t.owner == owner) out.push_back(t);
    }
  }
  std::sort(out.begin(), out.end(), [](const ApiToken& a, const ApiToken& b) {
    return a.created_at != b.created_at ? a.created_at > b.created_at : a.id < b.id;
  });
  return out;
}

Status ApiTokens::put(const ApiToken& t) {
  return store_.put_state(StateTable::kApiTokens,
                          std::string_view(reinterpret_cast<const char*>(t.hash.data()), 32), encode_token(t));
}

Result<bool> ApiTokens::insert(const ApiToken& token, uint64_t now) {
  std::lock_guard lock(mu_);
  size_t active = size_t(std::count_if(by_hash_.begin(), by_hash_.end(), [&](const auto& kv) {
    return kv.second.owner == token.owner && kv.second.active(now);
  }));
  if (active >= kMaxActiveTokensPerOwner) return false;
  if (Status s = put(token); !s) return Error{s.error()};
  by_hash_[token.hash] = token;
  return true;
}

Result<RevokeOutcome> ApiTokens::revoke(std::string_view id, const Pubkey& owner, uint64_t now) {
  std::lock_guard lock(mu_);
  for (auto& [hash, t] : by_hash_) {
    if (t.id != id || t.owner != owner) continue;
    if (t.revoked_at) return RevokeOutcome::kAlreadyRevoked;
    ApiToken revoked = t;
    revoked.revoked_at = now;
    revoked.revoked_by = owner;
    if (Status s = put(revoked); !s) return Error{s.error()};
    t = std::move(revoked);
    return RevokeOutcome::kRevoked;
  }
  return RevokeOutcome::kNotFound;
}

Result<size_t> ApiTokens::revoke_all(const Pubkey& owner, uint64_t now) {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (auto& [hash, t] : by_hash_) {
    if (t.owner != owner || !t.active(now)) continue;
    ApiToken revoked = t;
    revoked.revoked_at = now;
    revoked.revoked_by = owner;
    if (Status s = put(revoked); !s) return Error{s.error()};
    t = std::move(revoked);
    ++n;
  }
  return n;
}

void ApiTokens::touch(const TokenHash& hash, uint64_t now, uint64_t debounce) {
  std::lock_guard lock(mu_);
  auto it = by_hash_.find(hash);
  if (it == by_hash_.end() || now < it->second.last_used_at + debounce) return;
  it->second.last_used_at = now;
  (void)put(it->second);  // best effort: last_used_at is informational
}

}  // namespace buzz::engine
