// The upstream `events` row and a NIP-01 event, both ways (docs/reference/compat-backends.md §2):
// shared by `buzz migrate` and the live store (pg_event_store.h).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>
#include <vector>

#include "engine/event.h"
#include "engine/result.h"

namespace buzz::migrate {

// The columns of one events row as the readers select them (hex keys, epoch seconds).
struct EventColumns {
  std::string_view id_hex, pubkey_hex, created_at, kind, tags_json, content, sig_hex;
  const std::string* raw = nullptr;  // buzz_event_raw.raw, when the row has one
};

// The event a row stores: its exact bytes from buzz_event_raw when present, else
// rebuilt from the columns (tags JSONB re-serialized in NIP-01 form). Errors name
// what is wrong with the row, not which row it is.
engine::Result<engine::Event> event_from_columns(const EventColumns& row, simdjson::dom::parser& parser);

// TEXT and JSONB cannot hold U+0000 (§2): such an event has no row.
bool holds_nul(const engine::Event& e);

// PostgreSQL array literals for a parameter ("{…}"): each element quoted and escaped.
std::string text_array(const std::vector<std::string>& items);
// bytea[] from raw bytes, each element hex input ("\x…").
std::string bytea_array(const std::vector<std::string_view>& items);

// Event times past this do not fit timestamptz (year 294276): such events are refused.
inline constexpr uint64_t kMaxPgEventTime = 9'000'000'000'000ull;

}  // namespace buzz::migrate
