// The MIME type of a blob, read from its bytes with libmagic, never from what
// the client declares (docs/reference/media.md §3.1).
//
// Thread-safe: a libmagic cookie is not, so each thread opens its own on first
// use and keeps it (the network loops live as long as the process).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/result.h"

namespace buzz::engine {

// At most this much of the front of a blob is examined: every signature that
// matters is near the start, and libmagic's text heuristics scan what they get.
inline constexpr size_t kSniffBytes = 64 * 1024;

// "image/png", "application/x-pie-executable", …; nullopt when no signature
// identifies the bytes (libmagic's application/octet-stream, x-empty and
// text/plain: the cases docs/reference/media.md's signature tables call unknown). An error
// only if libmagic cannot open or load its database.
Result<std::optional<std::string>> sniff_mime(std::string_view bytes);

}  // namespace buzz::engine
