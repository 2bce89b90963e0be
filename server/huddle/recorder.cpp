// Recordings and published tracks on the recorder's thread; see recorder.h.
#include "server/huddle/recorder.h"

#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/file_digest.h"
#include "engine/hex.h"
#include "engine/kind_numbers.h"
#include "engine/thread_role.h"
#include "engine/json_text.h"
#include "server/common/log.h"

namespace buzz::server::huddle {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kManifest = "recording.json";
constexpr int64_t kFlushMs = 1000;  // no page waits longer than this to be written

int64_t granule_of_ms(int64_t ms) { return ms * (kOpusRate / 1000); }
double secs_of_granule(int64_t granule) { return double(granule) / double(kOpusRate); }

uint32_t random_serial() {
  uint32_t s = 0;
  engine::random_bytes(reinterpret_cast<uint8_t*>(&s), sizeof s);
  return s;
}

// A 48112's content: which piece of which published track.
std::string segment_content(const Recording& r, bool interrupted) {
  return json_object({{"ephemeral_channel_id", json_string(r.channel)},
                      {"interrupted", interrupted ? "true" : "false"},
                      {"recording_id", json_string(r.id)},
                      {"segment", std::to_string(r.segment())}});
}

std::string kind_name(Recording::Kind k) { return k == Recording::Kind::kRoom ? "room" : "track"; }

// What recover() reads back of a recording's manifest.
struct Manifest {
  Recording::Kind kind = Recording::Kind::kRoom;
  std::string id, channel;
  engine::Pubkey by{};
  uint32_t segment = 0;
};

std::optional<Manifest> read_manifest(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  std::string_view kind, id, channel, by;
  int64_t segment = 0;
  if (parser.parse(text).get_object().get(o) || o["kind"].get_string().get(kind) || o["id"].get_string().get(id) ||
      o["channel"].get_string().get(channel) || o["by"].get_string().get(by) || o["segment"].get_int64().get(segment)) {
    return std::nullopt;
  }
  Manifest m;
  m.kind = kind == "track" ? Recording::Kind::kTrack : Recording::Kind::kRoom;
  m.id = std::string(id);
  m.channel = std::string(channel);
  m.segment = uint32_t(segment);
  if (!engine::is_canonical_uuid(m.channel) || !engine::from_hex(by, &m.by)) return std::nullopt;
  return m;
}

// The manifest, written whole or not at all (a temporary name, then rename).
engine::Status write_manifest(const std::string& dir, const Recording& r, uint32_t segment) {
  const std::string text = json_object({{"by", json_string(engine::to_hex(r.by))},
                                        {"channel", json_string(r.channel)},
                                        {"id", json_string(r.id)},
                                        {"kind", json_string(kind_name(r.kind))},
                                        {"segment", std::to_string(segment)}});
  const std::string path = dir + "/" + std::string(kManifest);
  {
    std::ofstream out(path + ".tmp", std::ios::trunc);
    out << text;
    if (!out.flush()) return engine::Error{"cannot write " + path};
  }
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
  if (ec) return engine::Error{"cannot write " + path + ": " + ec.message()};
  return {};
}

}  // namespace

Recorder::Recorder(const Services& services, Settings settings) : s_(services), settings_(std::move(settings)) {}

Recorder::~Recorder() { stop(); }

void Recorder::start(SelfStopped self_stopped) {
  self_stopped_ = std::move(self_stopped);
  std::error_code ec;
  fs::create_directories(settings_.dir, ec);
  if (ec) log_warn("huddle recordings directory not made", {{"dir", settings_.dir}, {"error", ec.message()}});
  // Listed now, before any new recording can add a directory of its own.
  std::vector<std::string> leftovers;
  for (const auto& entry : fs::directory_iterator(settings_.dir, ec)) {
    if (entry.is_directory()) leftovers.push_back(entry.path().string());
  }
  thread_ = std::thread([this, leftovers = std::move(leftovers)]() mutable { run(std::move(leftovers)); });
}

void Recorder::stop() {
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) return;
    quit_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::shared_ptr<Recording> Recorder::reserve(Recording::Kind kind, const std::string& channel, const engine::Pubkey& by) {
  std::lock_guard lock(mu_);
  if (running_ >= settings_.max_recordings) return nullptr;
  ++running_;
  return std::make_shared<Recording>(kind, engine::random_uuid(), channel, by, steady_ms());
}

void Recorder::release(const std::shared_ptr<Recording>& r) {
  r->ended_ = true;
  std::lock_guard lock(mu_);
  --running_;
}

void Recorder::begin(const std::shared_ptr<Recording>& r) {
  if (r->kind == Recording::Kind::kRoom) {
    emit(kind::kHuddleRecordingStarted, r->channel,
         json_object({{"ephemeral_channel_id", json_string(r->channel)}, {"recording_id", json_string(r->id)}}),
         {{"p", engine::to_hex(r->by)}});
  }
  queue({.what = Job::What::kBegin, .rec = r, .at_ms = r->started_ms}, false);
}

void Recorder::frame(const std::shared_ptr<Recording>& r, const engine::Pubkey& who, std::string_view opus,
                     int64_t at_ms, std::optional<uint32_t> ts_48k) {
  if (r->ended_.load(std::memory_order_relaxed)) return;
  if (!queue({.what = Job::What::kFrame, .rec = r, .who = who, .opus = std::string(opus), .at_ms = at_ms, .ts_48k = ts_48k},
             true)) {
    stats_.frames_dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

void Recorder::end(const std::shared_ptr<Recording>& r, int64_t at_ms) {
  if (r->ended_.exchange(true)) return;  // ended already (a limit, or another peer's stop)
  queue({.what = Job::What::kEnd, .rec = r, .at_ms = at_ms}, false);
}

bool Recorder::queue(Job&& job, bool droppable) {
  {
    std::lock_guard lock(mu_);
    if (droppable) {
      if (frames_queued_ >= kRecorderQueueFrames) return false;
      ++frames_queued_;
    }
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void Recorder::run(std::vector<std::string> leftovers) {
  // Normal priority: past its queue's 4,096 frames a recording loses audio (docs/threads.md).
  engine::set_thread_role("buzz-recorder", engine::ThreadRole::kForeground);
  for (const std::string& dir : leftovers) recover(dir);
  std::vector<Job> jobs;
  int64_t flushed = steady_ms();
  for (;;) {
    bool quit = false;
    {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return !jobs_.empty() || quit_; });
      jobs.swap(jobs_);
      frames_queued_ = 0;
      quit = quit_ && jobs.empty();
    }
    if (quit) break;
    for (Job& j : jobs) {
      Recording& r = *j.rec;
      switch (j.what) {
        case Job::What::kBegin: open(j.rec); break;
        case Job::What::kFrame: keep(r, j.who, j.opus, j.at_ms, j.ts_48k); break;
        case Job::What::kEnd: {
          auto it = std::find(open_.begin(), open_.end(), j.rec);
          if (it == open_.end()) break;  // finished already, at a limit
          open_.erase(it);
          finish(r, granule_of_ms(j.at_ms - r.base_ms_), false);
          break;
        }
      }
    }
    jobs.clear();
    if (const int64_t now = steady_ms(); now - flushed >= kFlushMs) {
      tick(now);
      flushed = now;
    }
  }
  // Stopping: what still runs is ended where it is and published.
  const int64_t now = steady_ms();
  for (const std::shared_ptr<Recording>& r : open_) {
    r->ended_ = true;
    finish(*r, granule_of_ms(now - r->base_ms_), false);
  }
  open_.clear();
}

void Recorder::open(const std::shared_ptr<Recording>& rec) {
  Recording& r = *rec;
  r.base_ms_ = r.started_ms;
  std::error_code ec;
  fs::create_directories(dir_of(r), ec);
  engine::Status s = ec ? engine::Status(engine::Error{ec.message()}) : write_manifest(dir_of(r), r, 0);
  if (!s) log_warn("huddle recording manifest not written", {{"recording", r.id}, {"error", s.error()}});
  open_.push_back(rec);
}

std::string Recorder::track_path(const Recording& r, const engine::Pubkey& who) const {
  std::string name = engine::to_hex(who);
  if (r.kind == Recording::Kind::kTrack) name += "-" + std::to_string(r.segment_);
  return dir_of(r) + "/" + name + ".ogg";
}

void Recorder::keep(Recording& r, const engine::Pubkey& who, const std::string& opus, int64_t at_ms,
                    std::optional<uint32_t> ts_48k) {
  if (r.finished_ || (r.kind == Recording::Kind::kTrack && who != r.by)) return;
  if (r.kind == Recording::Kind::kTrack && at_ms - r.base_ms_ >= kSegmentMs) roll(r);
  const int samples = opus_samples(opus);
  if (samples == 0) return;
  std::unique_ptr<OggTrack>& t = r.tracks_[who];
  if (!t) {
    auto made = OggTrack::create(track_path(r, who), random_serial(),
                                 {"BUZZ_RECORDING=" + r.id, "BUZZ_PARTICIPANT=" + engine::to_hex(who)});
    if (!made) {
      log_warn("huddle track not created", {{"recording", r.id}, {"error", made.error()}});
      r.tracks_.erase(who);
      return;
    }
    t = std::move(*made);
    r.next_ts_.erase(who);
  }
  if (t->ended()) {
    stats_.frames_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (t->bytes() + opus.size() + 2 * kPageOverheadBytes > settings_.max_track_bytes) {
    // At its limit the track ends where it is; the recording goes on.
    stats_.frames_dropped.fetch_add(1, std::memory_order_relaxed);
    if (engine::Status s = t->finish(t->granule() + kSilenceSamples); !s) {
      log_warn("huddle track not finished", {{"recording", r.id}, {"error", s.error()}});
    }
    return;
  }
  // How far the track is behind the relay's clock, on which this packet ends
  // where it arrived. A track's first packet starts there (a late joiner's
  // track begins with silence); after that the sender's own media clock (the
  // v2 header's ts_48k) says where a gap is (lost packets, a pause), never
  // more than the track is behind, so network jitter adds none; and a track
  // kResyncMs behind (a v1 sender's pause, a clock that stood still) is
  // brought back to the relay's clock.
  const int64_t behind = granule_of_ms(at_ms - r.base_ms_) - samples - t->granule();
  int64_t silence = 0;
  auto next = r.next_ts_.find(who);
  if (t->granule() == 0 || behind > granule_of_ms(kResyncMs)) {
    silence = behind;
  } else if (ts_48k && next != r.next_ts_.end()) {
    silence = std::min<int64_t>(int32_t(*ts_48k - next->second), behind);  // wraps as the header's clock does
  }
  if (ts_48k) {
    r.next_ts_[who] = *ts_48k + uint32_t(samples);
  }
  engine::Status s;
  if (silence >= kSilenceSamples) s = t->pad_to(t->granule() + silence);
  if (s) s = t->add(opus, samples);
  if (!s) {
    log_warn("huddle track write failed", {{"recording", r.id}, {"error", s.error()}});
    return;
  }
  stats_.frames_kept.fetch_add(1, std::memory_order_relaxed);
}

void Recorder::tick(int64_t now_ms) {
  for (size_t i = 0; i < open_.size();) {
    Recording& r = *open_[i];
    for (auto& [who, t] : r.tracks_) {
      if (engine::Status s = t->flush(); !s) log_warn("huddle track flush failed", {{"recording", r.id}, {"error", s.error()}});
    }
    if (now_ms - r.started_ms >= settings_.max_recording_ms) {
      // A limit: the recording ends itself, and its room is told.
      std::shared_ptr<Recording> self = open_[i];
      open_.erase(open_.begin() + long(i));
      self->ended_ = true;
      finish(r, granule_of_ms(now_ms - r.base_ms_), false);
      if (self_stopped_) self_stopped_(self);
      continue;
    }
    if (r.kind == Recording::Kind::kTrack && now_ms - r.base_ms_ >= kSegmentMs) roll(r);
    ++i;
  }
}

void Recorder::roll(Recording& r) {
  if (auto it = r.tracks_.find(r.by); it != r.tracks_.end()) {
    if (engine::Status s = it->second->finish(granule_of_ms(kSegmentMs)); !s) {
      log_warn("huddle track not finished", {{"recording", r.id}, {"error", s.error()}});
    } else if (auto tag = publish(r, r.by, *it->second)) {
      emit(kind::kHuddleTrackSegment, r.channel, segment_content(r, false), {{"p", engine::to_hex(r.by)}, std::move(*tag)});
    }
    std::error_code ec;
    fs::remove(it->second->path(), ec);
    r.tracks_.erase(it);
  }
  ++r.segment_;
  r.base_ms_ += kSegmentMs;
  if (engine::Status s = write_manifest(dir_of(r), r, r.segment_); !s) {
    log_warn("huddle recording manifest not written", {{"recording", r.id}, {"error", s.error()}});
  }
}

void Recorder::finish(Recording& r, int64_t end_granule, bool interrupted) {
  r.finished_ = true;
  // Every track ends together: at the end, or past it where a track ran ahead.
  for (const auto& [who, t] : r.tracks_) {
    if (!t->ended()) end_granule = std::max(end_granule, t->granule() + kSilenceSamples);
  }
  std::vector<engine::Tag> tags{{"p", engine::to_hex(r.by)}};
  for (auto& [who, t] : r.tracks_) {
    // A track ended at its byte limit stays as it is.
    if (engine::Status s = t->finish(end_granule); !s) {
      log_warn("huddle track not finished", {{"recording", r.id}, {"error", s.error()}});
      continue;
    }
    if (auto tag = publish(r, who, *t)) tags.push_back(std::move(*tag));
  }
  const std::string duration = engine::media_duration_json(secs_of_granule(std::max<int64_t>(end_granule, 0)));
  if (r.kind == Recording::Kind::kRoom) {
    emit(kind::kHuddleRecording, r.channel,
         json_object({{"duration", duration},
                      {"ephemeral_channel_id", json_string(r.channel)},
                      {"interrupted", interrupted ? "true" : "false"},
                      {"recording_id", json_string(r.id)}}),
         std::move(tags));
  } else if (tags.size() > 1) {
    emit(kind::kHuddleTrackSegment, r.channel, segment_content(r, interrupted), std::move(tags));
  }
  r.tracks_.clear();
  std::error_code ec;
  fs::remove_all(dir_of(r), ec);
  std::lock_guard lock(mu_);
  if (running_ > 0) --running_;
}

std::optional<engine::Tag> Recorder::publish(const Recording& r, const engine::Pubkey& who, const OggTrack& t) {
  const std::string tmp = s_.media.root() + "/tmp/huddle-" + r.id + "-" + fs::path(t.path()).filename().string();
  uint8_t sha[32];
  auto copied = engine::copy_file_sha256(t.path(), tmp, UINT64_MAX, sha);
  if (!copied) {
    log_warn("huddle track not copied to the media store", {{"recording", r.id}, {"error", copied.error()}});
    return std::nullopt;
  }
  const std::string hex = engine::to_hex(sha, sizeof sha);
  int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  auto moved = fd >= 0 ? s_.media.put_blob_file(hex, "ogg", tmp, fd) : engine::Result<bool>(engine::Error{"cannot open " + tmp});
  if (fd >= 0) ::close(fd);
  if (!moved || !*moved) ::unlink(tmp.c_str());
  if (!moved) {
    log_warn("huddle track not stored", {{"recording", r.id}, {"error", moved.error()}});
    return std::nullopt;
  }
  const double secs = secs_of_granule(t.granule());
  engine::MediaMeta meta;
  meta.ext = "ogg";
  meta.mime_type = "audio/ogg";
  meta.size = *copied;
  meta.uploaded_at = engine::unix_now();
  meta.duration_secs = secs;
  meta.channel = r.channel;  // the huddle channel's readers alone are served it (docs/reference/media.md §6.5)
  if (engine::Status s = s_.media.put_meta(hex, meta); !s) {
    log_warn("huddle track not stored", {{"recording", r.id}, {"error", s.error()}});
    return std::nullopt;
  }
  return engine::Tag{"imeta",
                     "url " + settings_.media_url + "/" + hex + ".ogg",
                     "m audio/ogg",
                     "x " + hex,
                     "size " + std::to_string(*copied),
                     "duration " + engine::media_duration_json(secs),
                     "participant " + engine::to_hex(who)};
}

void Recorder::emit(uint16_t kind, const std::string& channel, std::string content, std::vector<engine::Tag> tags) {
  tags.insert(tags.begin(), {"h", channel});
  auto e = std::make_shared<engine::Event>(
      engine::signed_event(s_.key, kind, engine::unix_now(), std::move(tags), std::move(content)));
  if (!s_.writer.submit({StoreEvent{std::move(e), channel}, kUnanswered, s_.key.pubkey})) {
    log_warn("huddle recording event dropped: the store writer is full", {{"kind", std::to_string(kind)}});
  }
}

void Recorder::recover(const std::string& dir) {
  std::optional<Manifest> m = read_manifest(dir + "/" + std::string(kManifest));
  std::error_code ec;
  if (!m) {
    log_warn("huddle recording left without a readable manifest: removed", {{"dir", dir}});
    fs::remove_all(dir, ec);
    return;
  }
  Recording r(m->kind, m->id, m->channel, m->by, 0);
  r.segment_ = m->segment;
  // The tracks as they were, each cut after its last whole page; finish()
  // pads them to the longest, so they stay aligned.
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    engine::Pubkey who{};
    if (entry.path().extension() != ".ogg" || name.size() < 64 || !engine::from_hex(std::string_view(name).substr(0, 64), &who)) {
      continue;
    }
    auto t = OggTrack::resume(entry.path().string());
    if (!t || !*t) {
      log_warn("huddle track left unusable: not published", {{"file", entry.path().string()}});
      continue;
    }
    r.tracks_[who] = std::move(*t);
  }
  log_info("huddle recording left by a stopped process: published as interrupted",
           {{"recording", r.id}, {"tracks", std::to_string(r.tracks_.size())}});
  {
    std::lock_guard lock(mu_);
    ++running_;  // finish() counts it out again
  }
  finish(r, 0, true);
}

}  // namespace buzz::server::huddle
