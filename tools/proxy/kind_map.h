// The NIP-28 ⇄ Buzz kind translator (docs/reference/proxy.md §5.1): the complete table, and
// which of its mappings each direction actually lets through.
#pragma once

#include <cstdint>

namespace buzz::proxy {

// Standard kind → Buzz kind (1, 40, 42 → 9; 41, 44 → 40003; 4 → 41001; 43 → 9005).
uint16_t to_buzz(uint16_t kind);
// Buzz kind → standard kind (9, 40002 → 42; 40003 → 41; 41001 → 4; 9005 → 43).
uint16_t to_standard(uint16_t kind);

// Inbound EVENT kinds the proxy accepts from a client: 1, 7, 41, 42.
bool accepted_inbound(uint16_t kind);
// Upstream kinds the proxy passes out to clients: 9, 40002, 40003 (messages) and 7, 5 (targets).
bool is_outbound_message(uint16_t kind);
bool is_outbound_target(uint16_t kind);

}  // namespace buzz::proxy
