// A client's binary audio frame (docs/reference/huddle.md §4): the checks it passes before
// the relay forwards it, and the v2 header a receiver reads. Nothing here
// decodes audio; the frame is forwarded byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace buzz::server::huddle {

inline constexpr size_t kMaxFrameBytes = 4096;  // a bigger binary frame is dropped (§4.1, §7)
inline constexpr size_t kV2HeaderBytes = 8;

// The v2 header (§4.2), network byte order.
struct AudioHeader {
  uint16_t seq = 0;
  uint32_t ts_48k = 0;
  int8_t level_dbov = -127;  // clamped: outside −127…0 reads as −127 (silence)
  uint8_t flags = 0;
  bool dtx() const { return flags & 0x01; }
};

// The header of a v2 frame, or nullopt when it is too short to hold one.
std::optional<AudioHeader> parse_v2_header(std::string_view frame);

enum class FrameCheck : uint8_t { kForward, kTooBig, kTooShort, kNotOpus };

// Whether a frame of the room's protocol version (1: raw Opus, 2: header +
// Opus) may be forwarded: at most kMaxFrameBytes, a v2 frame longer than its
// header, and a payload that is a well-formed Opus packet. The Opus check is
// libopus's opus_packet_parse: the TOC byte and the frame-length framing of
// codes 0–3 (padding, self-delimited lengths, at most 48 frames and 120 ms),
// a few dozen instructions and no decoding. It keeps garbage (a client bug, a
// hostile peer) from reaching every other peer's decoder, where each would
// fail or conceal it; what it lets through every receiver can decode.
FrameCheck check_frame(std::string_view frame, int version);

}  // namespace buzz::server::huddle
