// The audit entry of one authentication attempt (audit.md §5.2): a NIP-42
// AUTH, or an HTTP call that changes state, by token or NIP-98.
#pragma once

#include <string_view>

#include "engine/audit_entry.h"
#include "engine/hex.h"

namespace buzz::server {

// `method`: "nip42", "token" or "nip98"; an empty `reason` records a success.
engine::AuditRecord auth_audit_record(const engine::Pubkey& actor, std::string_view method, std::string_view reason);

}  // namespace buzz::server
