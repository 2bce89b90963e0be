// What the video path checks in an uploaded MP4 (docs/reference/media.md §3.3 step 4), read
// from the file's header without decoding a frame: the fast-start layout
// (moov before mdat, from the top-level atoms), then the container, the first
// video track's codec, timescale, duration and size through libavformat's MP4
// demuxer. Every refusal carries the spec's status and message.
//
// Thread-safe (each call has its own demuxer). Reads only the atoms before
// mdat and the moov, so a 500 MB upload costs a few KiB of reads.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace buzz::server {

inline constexpr uint32_t kMaxVideoWidth = 3840;
inline constexpr uint32_t kMaxVideoHeight = 2160;
inline constexpr double kMaxVideoSecs = 600;
inline constexpr int kMaxTopLevelAtoms = 1024;

struct VideoInfo {
  uint32_t width = 0;
  uint32_t height = 0;
  double duration_secs = 0;  // the first video track's (whole milliseconds)
};

struct VideoCheck {
  bool ok = false;
  VideoInfo info;  // when ok
  int status = 0;  // when not: 400 or 415 (503: the demuxer could not be loaded)
  std::string error;
};

// The bytes to inspect: `size` of them, read by `read(buf, n, offset)` (the
// count read, 0 at the end, negative on error).
struct VideoBytes {
  uint64_t size = 0;
  std::function<ssize_t(void* buf, size_t n, uint64_t offset)> read;

  static VideoBytes of_file(int fd, uint64_t size);
  static VideoBytes of_memory(std::string_view bytes);  // the view must outlive the calls
};

VideoCheck inspect_mp4(const VideoBytes& bytes);

}  // namespace buzz::server
