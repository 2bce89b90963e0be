// Recorder: huddle recordings and published tracks (docs/reference/huddle.md §11).
//
// A recording keeps every participant's Opus packets, as received, in an Ogg
// Opus track of its own (ogg_track.h); when it stops, each track becomes a
// media blob and one relay-signed 48111 in the huddle channel lists them with
// `imeta`. A published track is one participant's own audio, handed out while
// the call goes on in pieces of kSegmentMs, each a blob and a 48112.
//
// Threads: the loops call reserve/begin/frame/end, which only queue work (a
// frame is one copy into a bounded queue under a mutex: no disk I/O on a
// loop). One thread of the recorder's own writes the files, flushes every
// track's pages each second, applies the limits, copies finished tracks into
// the media store and submits the events to the store writer.
//
// Restart: each recording has a directory under Settings::dir with a
// manifest (recording.json) and its track files, removed once published. At
// start() the thread first finishes what a stopped process left there: the
// torn last page of each track is cut, the tracks are padded to the longest
// and ended, and they are published with "interrupted": true.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/media_store.h"
#include "engine/signature.h"
#include "server/huddle/ogg_track.h"
#include "server/pipeline/store_writer.h"

namespace buzz::server::huddle {

// The bounds of docs/limits.md, "Huddle recordings"; the first three are the
// defaults of settings (Recorder::Settings, huddle-recording-* keys).
inline constexpr int64_t kMaxRecordingMs = 2 * 3600 * 1000;  // a recording or a published track stops itself after 2 h
inline constexpr uint64_t kMaxTrackBytes = 64ull << 20;       // a track keeps no frame past 64 MiB
inline constexpr size_t kMaxRecordings = 16;                  // recordings and published tracks running at once, relay-wide
inline constexpr size_t kRecorderQueueFrames = 4096;          // frames waiting for the recorder's thread; past that, dropped
inline constexpr int64_t kSegmentMs = 10000;                  // a published track goes out in pieces of 10 s
inline constexpr int64_t kResyncMs = 500;                      // a track this far behind the relay's clock is padded back to it

// The steady clock in milliseconds: what frames are stamped with and recordings begin at.
inline int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One recording of a room (kRoom), or one participant's published track (kTrack).
class Recording {
 public:
  enum class Kind : uint8_t { kRoom, kTrack };
  Recording(Kind kind, std::string id, std::string channel, const engine::Pubkey& by, int64_t started_ms)
      : kind(kind), id(std::move(id)), channel(std::move(channel)), by(by), started_ms(started_ms) {}

  const Kind kind;
  const std::string id;       // a UUID: its directory, its events' recording_id
  const std::string channel;  // the huddle channel
  const engine::Pubkey by;    // who started it (kTrack: whose track it is)
  const int64_t started_ms;   // steady clock
  uint32_t segment() const { return segment_; }  // kTrack, on the recorder's thread: the piece being written

 private:
  friend class Recorder;
  std::atomic<bool> ended_{false};  // no frame is queued for it any more
  // The recorder's thread's alone:
  std::map<engine::Pubkey, std::unique_ptr<OggTrack>> tracks_;
  std::map<engine::Pubkey, uint32_t> next_ts_;  // v2 senders: where their media clock is due at their next packet
  int64_t base_ms_ = 0;   // granule 0 on the steady clock: the start, or a published track's current piece's
  uint32_t segment_ = 0;  // kTrack: its current piece
  bool finished_ = false; // its tracks are stored: a frame queued meanwhile is not kept
};

struct RecorderStats {
  std::atomic<uint64_t> frames_kept{0};
  std::atomic<uint64_t> frames_dropped{0};  // the queue was full, or the track at its byte limit
};

class Recorder {
 public:
  struct Services {
    StoreWriter& writer;
    engine::MediaStore& media;
    const engine::Keypair& key;  // signs 48110–48112
  };
  struct Settings {
    std::string dir;        // where recordings are written until published
    std::string media_url;  // the public base of /media, for the imeta url
    int64_t max_recording_ms = kMaxRecordingMs;
    uint64_t max_track_bytes = kMaxTrackBytes;
    size_t max_recordings = kMaxRecordings;
  };
  // On the recorder's thread, for a recording that stopped itself at a limit:
  // its room is to be told.
  using SelfStopped = std::function<void(const std::shared_ptr<Recording>&)>;

  Recorder(const Services& services, Settings settings);
  ~Recorder();

  // Starts the thread, which first finishes what a stopped process left.
  void start(SelfStopped self_stopped);
  // Ends and publishes every recording still running, then stops the thread.
  void stop();

  // Any thread, none blocking on disk.
  // A new recording, counted against max_recordings; nullptr when that many run.
  std::shared_ptr<Recording> reserve(Recording::Kind kind, const std::string& channel, const engine::Pubkey& by);
  // A reservation that will not be used (the room already records).
  void release(const std::shared_ptr<Recording>& r);
  // A reservation that goes on: its 48110 (a room's) goes to the store writer
  // now, before anybody's frame can be kept, and its directory is made.
  void begin(const std::shared_ptr<Recording>& r);
  // One packet of `who`'s, received at `at_ms` (steady); the v2 header is off,
  // its ts_48k given (nullopt for v1).
  void frame(const std::shared_ptr<Recording>& r, const engine::Pubkey& who, std::string_view opus, int64_t at_ms,
             std::optional<uint32_t> ts_48k);
  // Stops it at `at_ms`: its tracks are ended and published.
  void end(const std::shared_ptr<Recording>& r, int64_t at_ms);

  const RecorderStats& stats() const { return stats_; }

 private:
  struct Job {
    enum class What : uint8_t { kBegin, kFrame, kEnd };
    What what = What::kFrame;
    std::shared_ptr<Recording> rec{};
    engine::Pubkey who{};
    std::string opus{};
    int64_t at_ms = 0;
    std::optional<uint32_t> ts_48k{};
  };
  bool queue(Job&& job, bool droppable);
  void run(std::vector<std::string> leftovers);
  // The thread's handling of each job.
  void open(const std::shared_ptr<Recording>& r);
  void keep(Recording& r, const engine::Pubkey& who, const std::string& opus, int64_t at_ms,
            std::optional<uint32_t> ts_48k);
  // Ends every track of `r` at `end_granule`, or where the longest ends if
  // later (a track at its byte limit, where it is), publishes them, and
  // removes its directory.
  void finish(Recording& r, int64_t end_granule, bool interrupted);
  void tick(int64_t now_ms);
  // A published track's piece is ended, published (48112) and the next one begins.
  void roll(Recording& r);
  void recover(const std::string& dir);
  // A finished track file as a media blob; its imeta tag, or nullopt.
  std::optional<engine::Tag> publish(const Recording& r, const engine::Pubkey& who, const OggTrack& t);
  void emit(uint16_t kind, const std::string& channel, std::string content, std::vector<engine::Tag> tags);
  std::string dir_of(const Recording& r) const { return settings_.dir + "/" + r.id; }
  std::string track_path(const Recording& r, const engine::Pubkey& who) const;

  const Services s_;
  const Settings settings_;
  SelfStopped self_stopped_;
  RecorderStats stats_;

  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Job> jobs_;
  size_t frames_queued_ = 0;
  size_t running_ = 0;  // reserved and not yet finished
  bool quit_ = false;
  std::thread thread_;

  std::vector<std::shared_ptr<Recording>> open_;  // the thread's: begun and not yet finished
};

}  // namespace buzz::server::huddle
