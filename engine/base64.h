// Base64 (RFC 4648), the one codec of the server and the tools: the encoders
// write `Authorization: Nostr <base64 event>` headers (the CLI, the load tool,
// the tests), WebSocket keys (tools/client) and data: URLs (link previews);
// the decoders read those headers.
//
// NIP-98 (docs/reference/rest-api.md §1.3) takes what clients send: either alphabet, padding
// optional. Blossom (docs/reference/media.md §2.1) is exact: URL-safe without padding
// (BUD-11) first, then standard with padding (nostr-tools); both refuse
// anything else, including non-zero bits after the last whole byte.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace buzz::engine {

// Standard alphabet (§4), padded.
std::string encode_base64(std::string_view bytes);

// URL-safe alphabet (§5), unpadded.
std::string encode_base64url_unpadded(std::string_view bytes);

// Standard (RFC 4648 §4) or URL-safe (§5) alphabet, padding optional.
std::optional<std::string> decode_base64(std::string_view text);

// Strict RFC 4648 §5: URL-safe alphabet, no padding.
std::optional<std::string> decode_base64url_unpadded(std::string_view text);

// Strict RFC 4648 §4: standard alphabet, padded to a multiple of four.
std::optional<std::string> decode_base64_padded(std::string_view text);

}  // namespace buzz::engine
