// Strict NIP-01 parsing of one event object (docs/reference/protocol.md §2.1).
//
// Called by the server's message parser with the already-validated simdjson
// DOM element and the object's raw text. A failure returns the detail that
// follows "invalid event: " in the NOTICE; nothing is partially filled in.
#pragma once

#include <simdjson.h>

#include <string_view>

#include "engine/event.h"
#include "engine/result.h"

namespace buzz::engine {

Result<Event> parse_event(simdjson::dom::element object, std::string_view raw);

// Parses a whole event JSON text (tools, tests, relay-signed events read back).
Result<Event> parse_event_json(std::string_view json);

}  // namespace buzz::engine
