// Audit segment files (docs/reference/audit.md §8.1–8.3): names, the 64-byte header, frames
// (len | type | payload | crc), the 88-byte trailer, CRC-32C, and the few file
// operations the writer, recovery and verification share.
//
// A frame's CRC separates torn writes (safe to cut off) from chain damage
// (never repaired automatically); read_frame reports which case it saw.
// Sealed segments are never rewritten.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/file_digest.h"
#include "engine/hex.h"
#include "engine/result.h"

namespace buzz::engine {

inline constexpr size_t kSegmentHeaderBytes = 64;
inline constexpr size_t kFrameOverheadBytes = 9;  // len (4) + type (1) + crc (4)
inline constexpr uint32_t kMaxFramePayloadBytes = 1 << 20;
inline constexpr size_t kTrailerPayloadBytes = 88;
inline constexpr size_t kTrailerFrameBytes = kFrameOverheadBytes + kTrailerPayloadBytes;

enum class FrameType : uint8_t { kEntry = 0x01, kTrailer = 0x02 };

struct SegmentHeader {
  uint64_t first_seq = 1;
  Id anchor_prev_hash{};  // prev_hash of the first entry, raw; genesis is all zeros
  int64_t created_at_us = 0;
};

struct SegmentTrailer {
  uint64_t last_seq = 0;
  uint64_t record_count = 0;
  Id last_hash{};
  Id file_digest{};  // SHA-256 of every byte before the trailer frame
  int64_t sealed_at_us = 0;
};

std::string encode_segment_header(const SegmentHeader& header);
// Reads the first 64 bytes of a segment: magic, version and CRC must hold.
Result<SegmentHeader> decode_segment_header(std::string_view file_bytes);

std::string encode_trailer_payload(const SegmentTrailer& trailer);
Result<SegmentTrailer> decode_trailer_payload(std::string_view payload);

void append_frame(std::string& out, FrameType type, std::string_view payload);

enum class FrameStatus {
  kOk,
  kEnd,         // offset is the end of the bytes
  kIncomplete,  // the frame runs past the end of the bytes
  kBadLength,   // len is 0 or above 1 MiB
  kBadCrc,
  kBadType,     // valid CRC, unknown type: not a torn write
};

struct Frame {
  FrameStatus status = FrameStatus::kEnd;
  FrameType type = FrameType::kEntry;
  std::string_view payload;
  size_t end = 0;  // offset just after the frame, when kOk
};

Frame read_frame(std::string_view bytes, size_t offset);
const char* frame_status_text(FrameStatus status);

// The first offset at or after `from` where a frame with a valid CRC and a known
// type starts, or SIZE_MAX. Recovery uses it to tell a torn tail (nothing valid
// follows) from damage in the middle of a segment.
size_t find_valid_frame(std::string_view bytes, size_t from);

// "seg-<first seq, 20 digits>.bza"
std::string segment_file_name(uint64_t first_seq);

struct SegmentFile {
  uint64_t first_seq = 0;
  std::string name;
};

// Segment files of a directory in chain order; a missing directory has none.
Result<std::vector<SegmentFile>> list_segments(const std::string& dir);

Result<std::string> read_whole_file(const std::string& path);

// The trailer of a sealed segment, read from its last 97 bytes.
Result<SegmentTrailer> read_segment_trailer(const std::string& path);

// pwrite until all of data is written.
Status write_at(int fd, std::string_view data, uint64_t offset);

// Writes `<name>.tmp` with the header, fsyncs it, renames it to the segment name
// and fsyncs the directory (§8.4 steps 3–5). Returns the segment's path.
Result<std::string> create_segment(const std::string& dir, const SegmentHeader& header);

}  // namespace buzz::engine
