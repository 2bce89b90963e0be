// One audit-log entry: what producers submit (AuditRecord), what the writer
// adds (seq, timestamp, prev_hash, hash), the exact hash of docs/reference/audit.md §3, and the
// entry payload JSON stored in segment frames (§8.3).
//
// The hash input is raw bytes with no separators, so every byte here matters:
// audit_hash must keep reproducing test vectors V1–V3 of docs/reference/audit.md §3.4, or
// chains stop being compatible with upstream's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/kind_numbers.h"
#include "engine/result.h"

namespace buzz::engine {

// prev_hash of seq 1: 64 ASCII zeros.
inline constexpr std::string_view kAuditGenesisHash =
    "0000000000000000000000000000000000000000000000000000000000000000";

// NIP-42 AUTH events carry challenges and tokens; they never enter the chain.
inline constexpr uint32_t kAuditForbiddenKind = kind::kAuth;
inline constexpr std::string_view kAuditForbiddenKindError =
    "auth events (kind 22242) must never appear in the audit log";

inline constexpr uint32_t kKindMediaUpload = 49001;  // pseudo-kind of media_uploaded entries
inline constexpr uint32_t kKindAuditEntry = 48001;   // event_kind of auth/rate-limit entries (§5.2)

inline constexpr size_t kMaxAuditMetaBytes = 64 * 1024;
inline constexpr size_t kMaxAuditFieldBytes = 255;  // event_id and actor (upstream VARCHAR(255))

// The 11 actions (docs/reference/audit.md §4).
inline constexpr std::string_view kActionEventCreated = "event_created";
inline constexpr std::string_view kActionEventDeleted = "event_deleted";
inline constexpr std::string_view kActionChannelCreated = "channel_created";
inline constexpr std::string_view kActionChannelUpdated = "channel_updated";
inline constexpr std::string_view kActionChannelDeleted = "channel_deleted";
inline constexpr std::string_view kActionMemberAdded = "member_added";
inline constexpr std::string_view kActionMemberRemoved = "member_removed";
inline constexpr std::string_view kActionAuthSuccess = "auth_success";
inline constexpr std::string_view kActionAuthFailure = "auth_failure";
inline constexpr std::string_view kActionRateLimitExceeded = "rate_limit_exceeded";
inline constexpr std::string_view kActionMediaUploaded = "media_uploaded";
// Buzz: a NIP-86 management call that changed the relay (docs/reference/audit.md §4).
inline constexpr std::string_view kActionRelayAdmin = "relay_admin";

bool is_audit_action(std::string_view action);

// What a producer submits; the writer assigns the rest.
struct AuditRecord {
  std::string event_id;
  uint32_t kind = 0;
  std::string actor;
  std::string action;
  std::string channel;      // canonical lowercase UUID text, or empty for none
  std::string meta = "null";  // JSON text; stored and hashed in canonical form

  bool operator==(const AuditRecord&) const = default;
};

// A record placed in the chain.
struct AuditEntry : AuditRecord {
  uint64_t seq = 0;
  std::string ts;         // the exact RFC 3339 text that was hashed
  std::string prev_hash;  // 64 lowercase hex
  std::string hash;       // 64 lowercase hex

  bool operator==(const AuditEntry&) const = default;  // all fields, not just the record's
};

// What the writer requires of a record: not kind 22242, a known action, event_id
// and actor of at most 255 bytes of UTF-8, a canonical UUID or empty channel, and
// meta valid JSON of at most 64 KiB without floats. On success meta is rewritten
// to canonical form. Producers may call it first to learn why a record would be
// refused; the writer calls it again and never appends a record that fails it.
Status normalize_audit_record(AuditRecord& record);

// RFC 3339 UTC text of a microsecond instant (docs/reference/audit.md §3.2): fraction omitted
// when zero, else 3 or 6 digits, offset written "+00:00".
std::string audit_timestamp(int64_t unix_micros);

// Lowercase hex SHA-256 over the §3 byte layout. Expects a normalized record
// (channel a canonical UUID or empty, meta canonical).
std::string audit_hash(const AuditEntry& entry);

// §3.3: sorted keys, compact, serde_json string escaping. Floats are refused
// (upstream metadata holds only strings and integers), as are duplicate keys.
Result<std::string> canonical_json(std::string_view json);

// Entry payload (§8.3): compact JSON with keys seq, ts, event_id, kind, actor,
// action, channel, meta, prev, hash in that order.
std::string encode_audit_payload(const AuditEntry& entry);

// Parses a payload and requires it to be exactly what encode_audit_payload
// would write for the entry it describes (so stored bytes have one form).
// Does not check the hash.
Result<AuditEntry> decode_audit_payload(std::string_view payload);

}  // namespace buzz::engine
