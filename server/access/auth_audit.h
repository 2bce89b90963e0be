// The audit entry of one authentication attempt (docs/reference/audit.md §5.2): a NIP-42
// AUTH, or an HTTP call that changes state, by token or NIP-98. And the bound
// on the failures an unauthenticated client may write: AuthFailureAudit.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/audit_entry.h"
#include "engine/hex.h"

namespace buzz::server {

// `method`: "nip42", "token" or "nip98"; an empty `reason` records a success.
// `actor` is a pubkey the attempt proved (a valid signature over it).
engine::AuditRecord auth_audit_record(const engine::Pubkey& actor, std::string_view method, std::string_view reason);

// A failure whose pubkey nothing proved (a bad signature, another
// connection's challenge): no actor; the pubkey only as `claimed_pubkey` in
// the metadata, so nobody can write entries in another's name (docs/audit.md).
engine::AuditRecord unproven_auth_failure_record(const engine::Pubkey& claimed, std::string_view method,
                                                 std::string_view reason);

// How many auth_failure entries one remote address may cause: at most
// kPerAddressPerMinute in each minute, for at most kMaxAddresses addresses at
// once (about 72 bytes each); past either, the failure is refused as before
// but not audited. Any thread.
class AuthFailureAudit {
 public:
  static constexpr uint32_t kPerAddressPerMinute = 10;
  static constexpr size_t kMaxAddresses = 4096;

  // Whether a failure from `peer` ("ip:port"; the port is ignored) is audited; counts it if so.
  bool due(std::string_view peer, uint64_t now);

 private:
  struct Window {
    uint64_t start = 0;  // the second its minute began
    uint32_t used = 0;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Window> windows_;
};

}  // namespace buzz::server
