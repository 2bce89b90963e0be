// Duration strings of workflow definitions (docs/reference/workflows.md §2.4): trimmed, an
// unsigned integer with an optional h / m / s suffix (seconds without one);
// no decimals, no combined forms like 1h30m.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/result.h"

namespace buzz::server {

// Seconds, or "invalid duration: <s>" / "duration overflow: <s>".
engine::Result<uint64_t> parse_duration(std::string_view text);

}  // namespace buzz::server
