// OggTrack: one participant's Opus packets, as received, in an Ogg Opus file
// (RFC 7845) written with libogg: no decoding, no re-encoding. The file opens
// with its OpusHead and OpusTags pages; every packet advances the granule
// position by its own sample count (48 kHz), and a gap is filled with 20 ms
// packets of encoded silence so that every track of a recording stays on the
// same clock (docs/reference/huddle.md §11.2).
//
// Crash safety: pages are written to the file as libogg completes them, and
// flush() forces out the page in progress (the recorder calls it every
// second), so a killed process leaves whole pages up to the last second;
// resume() cuts a torn last page off and carries the stream on from there.
// finish() ends the stream with an end-of-stream page and syncs the file.
//
// Not thread-safe: the recorder's thread owns every track. Calls block on disk I/O.
#pragma once

#include <ogg/ogg.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result.h"

namespace buzz::server::huddle {

inline constexpr int64_t kOpusRate = 48000;       // Ogg Opus granule positions count 48 kHz samples
inline constexpr int64_t kSilenceSamples = 960;   // one silence packet: 20 ms
inline constexpr uint64_t kPageOverheadBytes = 282;  // an Ogg page header at most (27 + 255 lacing values)

// One 20 ms Opus packet that decodes to silence (encoded once by libopus).
const std::string& silence_packet();

// The 48 kHz samples an Opus packet holds, or 0 if it is not one.
int opus_samples(std::string_view packet);

class OggTrack {
 public:
  // A new file at `path` (truncated), with the head pages; `comments` are
  // OpusTags' "KEY=value" strings.
  static engine::Result<std::unique_ptr<OggTrack>> create(const std::string& path, uint32_t serial,
                                                          const std::vector<std::string>& comments);
  // A file left by a stopped process: the bytes after its last whole page
  // are cut off and the stream goes on after that page (or, if that page
  // ended the stream, the track is ended() as it is). nullptr when the file
  // holds no usable stream (not even its two head pages).
  static engine::Result<std::unique_ptr<OggTrack>> resume(const std::string& path);

  ~OggTrack();
  OggTrack(const OggTrack&) = delete;
  OggTrack& operator=(const OggTrack&) = delete;

  // A packet of `samples` samples; the pages libogg completes are written.
  engine::Status add(std::string_view packet, int samples);
  // Silence packets while one more still ends at or before `granule`.
  engine::Status pad_to(int64_t granule);
  // Writes the page in progress, if any.
  engine::Status flush();
  // Pads to `granule`, ends the stream with a last silence packet marked
  // end-of-stream, syncs and closes the file. Nothing, once ended.
  engine::Status finish(int64_t granule);
  bool ended() const { return fd_ < 0; }

  int64_t granule() const { return granule_; }
  // The file's length once what it holds is paged: the pages written and the
  // packets still waiting for theirs (their headers not counted).
  uint64_t bytes() const { return bytes_ + pending_; }
  const std::string& path() const { return path_; }

 private:
  OggTrack(std::string path, int fd, uint32_t serial);
  engine::Status put(std::string_view packet, int samples, bool eos);
  engine::Status write_pages(bool force);

  std::string path_;
  int fd_ = -1;
  ogg_stream_state os_{};
  int64_t granule_ = 0;
  uint64_t bytes_ = 0;    // written
  uint64_t pending_ = 0;  // packet bytes added and not yet written in a page
};

}  // namespace buzz::server::huddle
