// RFC 6455 WebSocket codec primitives: frame headers, masking, the handshake
// accept key, close payloads and UTF-8 validation. No sockets, no I/O.
// Called by the server's connection code (net/) and by the test/load client
// (tools/client/). Invariant: nothing here allocates or throws on the hot path
// (parse_header, apply_mask, encode_header, is_valid_utf8); only the
// handshake/close helpers that return std::string allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace buzz::net::ws {

enum class Opcode : uint8_t {
  kContinuation = 0,
  kText = 1,
  kBinary = 2,
  kClose = 8,
  kPing = 9,
  kPong = 10,
};

// 2 fixed bytes + 8 extended-length bytes + 4 mask bytes.
inline constexpr size_t kMaxHeaderBytes = 14;
// Control frames (close/ping/pong) may carry at most this many payload bytes.
inline constexpr size_t kMaxControlPayload = 125;

inline constexpr bool is_control(Opcode op) {
  return (static_cast<uint8_t>(op) & 0x8) != 0;
}

struct FrameHeader {
  bool fin;
  Opcode opcode;
  bool masked;
  uint8_t mask[4];       // zeroed when !masked
  uint64_t payload_len;
  size_t header_len;     // bytes before the payload, 2..kMaxHeaderBytes
};

enum class HeaderStatus { kOk, kNeedMore, kProtocolError };

// Parses one frame header at data[0..len). Protocol errors: reserved bits
// set, unknown opcode, control frame with payload > 125 or fin=0, 64-bit
// length with the top bit set. Non-minimal length encodings are accepted.
// Errors visible in the bytes present are reported even when len is short.
// Whether a mask is required is the caller's policy (server: yes, client: no).
HeaderStatus parse_header(const uint8_t* data, size_t len, FrameHeader* out);

// XORs data[0..len) in place with the mask. `offset` is the payload position
// of data[0], so a payload may be unmasked in pieces as it arrives.
void apply_mask(uint8_t* data, size_t len, const uint8_t mask[4],
                uint64_t offset = 0);

// Writes a header into out (>= kMaxHeaderBytes bytes). mask == nullptr means
// an unmasked (server->client) frame. Always uses the minimal length
// encoding. Returns the header length.
size_t encode_header(uint8_t* out, Opcode op, uint64_t payload_len,
                     bool fin = true, const uint8_t* mask = nullptr);

// Sec-WebSocket-Accept value for a client's Sec-WebSocket-Key
// (base64(SHA-1(key + GUID)), via OpenSSL).
std::string accept_key(std::string_view client_key);

// Close frame payload: 2-byte big-endian code followed by the reason.
// The caller keeps the reason short enough (<= 123 bytes) for a control frame.
std::string close_payload(uint16_t code, std::string_view reason = {});

// The code that answers a peer's close frame (RFC 6455 §5.5.1, §7.4): the
// peer's own code when a peer may send it (1000–1003, 1007–1014, 3000–4999),
// 1000 for an empty body, and 1002 for a malformed one: a single byte, a code
// that is reserved or only local (1005, 1006, 1015), or a reason that is not
// UTF-8.
uint16_t close_reply_code(std::string_view close_body);

// True if bytes are valid UTF-8: rejects overlong encodings, surrogates
// (U+D800..U+DFFF), code points above U+10FFFF and truncated sequences.
bool is_valid_utf8(std::string_view bytes);

}  // namespace buzz::net::ws
