// The audio frame checks; see audio_frame.h.
#include "server/huddle/audio_frame.h"

#include <opus/opus.h>

namespace buzz::server::huddle {

std::optional<AudioHeader> parse_v2_header(std::string_view frame) {
  if (frame.size() < kV2HeaderBytes) return std::nullopt;
  auto b = [&](size_t i) { return uint32_t(uint8_t(frame[i])); };
  AudioHeader h;
  h.seq = uint16_t(b(0) << 8 | b(1));
  h.ts_48k = b(2) << 24 | b(3) << 16 | b(4) << 8 | b(5);
  const auto level = int8_t(uint8_t(frame[6]));
  h.level_dbov = level > 0 || level == -128 ? int8_t(-127) : level;
  h.flags = uint8_t(frame[7]);
  return h;
}

FrameCheck check_frame(std::string_view frame, int version) {
  if (frame.size() > kMaxFrameBytes) return FrameCheck::kTooBig;
  std::string_view opus = frame;
  if (version == 2) {
    if (frame.size() <= kV2HeaderBytes) return FrameCheck::kTooShort;
    opus.remove_prefix(kV2HeaderBytes);
  }
  if (opus.empty()) return FrameCheck::kTooShort;
  unsigned char toc = 0;
  const unsigned char* frames[48];
  opus_int16 sizes[48];
  int payload_offset = 0;
  const int n = opus_packet_parse(reinterpret_cast<const unsigned char*>(opus.data()), opus_int32(opus.size()), &toc,
                                  frames, sizes, &payload_offset);
  return n > 0 ? FrameCheck::kForward : FrameCheck::kNotOpus;
}

}  // namespace buzz::server::huddle
