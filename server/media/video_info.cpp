// MP4 inspection for the video path; see video_info.h.
//
// Two readers, each for what it does well: a walk over the atom headers for
// what libavformat hides (the top-level order for fast-start, the ftyp brand,
// the track's raw mdhd timescale, which the demuxer silently turns from 0
// into 1), and libavformat's MP4 demuxer for the track itself (codec tag,
// dimensions, duration).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "server/media/libav.h"
#include "server/media/video_info.h"

namespace buzz::server {
namespace {

constexpr std::string_view kInvalid = "invalid video data";

VideoCheck refuse(int status, std::string_view error) { return {false, {}, status, std::string(error)}; }

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }
uint64_t be64(const uint8_t* p) { return uint64_t(be32(p)) << 32 | be32(p + 4); }

bool read_exact(const VideoBytes& b, void* buf, size_t n, uint64_t offset) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = b.read(static_cast<char*>(buf) + got, n - got, offset + got);
    if (r <= 0) return false;
    got += size_t(r);
  }
  return true;
}

struct Atom {
  char type[4];
  uint64_t start = 0;  // of the header
  uint64_t body = 0;   // of the payload
  uint64_t end = 0;
  bool is(const char* t) const { return std::memcmp(type, t, 4) == 0; }
};

// The atom whose header is at `at`, inside [at, limit): size 1 means a 64-bit
// size follows, 0 means "to the end". Nullopt if the header does not fit or
// its size is impossible.
std::optional<Atom> atom_at(const VideoBytes& b, uint64_t at, uint64_t limit) {
  uint8_t h[16];
  if (limit - at < 8 || !read_exact(b, h, 8, at)) return std::nullopt;
  Atom a;
  std::memcpy(a.type, h + 4, 4);
  a.start = at;
  uint64_t size = be32(h);
  a.body = at + 8;
  if (size == 1) {
    if (limit - at < 16 || !read_exact(b, h + 8, 8, at + 8)) return std::nullopt;
    size = be64(h + 8);
    a.body = at + 16;
  } else if (size == 0) {
    size = limit - at;
  }
  if (size < a.body - at || size > limit - at) return std::nullopt;
  a.end = at + size;
  return a;
}

// The first child of [from, to) of type `type`.
std::optional<Atom> child(const VideoBytes& b, uint64_t from, uint64_t to, const char* type) {
  for (int n = 0; from < to && n < kMaxTopLevelAtoms; ++n) {
    auto a = atom_at(b, from, to);
    if (!a) return std::nullopt;
    if (a->is(type)) return a;
    from = a->end;
  }
  return std::nullopt;
}

// What the atom walk finds: the layout verdict, the major brand, and the
// first video track's mdhd timescale.
struct Layout {
  bool fast_start = false;
  bool parsed = false;  // a moov was found and its atoms are whole
  char brand[4] = {};
  std::optional<uint32_t> video_timescale;
};

Layout walk_atoms(const VideoBytes& b) {
  Layout out;
  uint64_t at = 0;
  std::optional<Atom> moov;
  for (int n = 0; at < b.size; ++n) {
    if (n == kMaxTopLevelAtoms) return out;  // not fast-start
    auto a = atom_at(b, at, b.size);
    if (!a) {
      out.fast_start = true;  // no mdat came first: the header is what is broken
      return out;
    }
    if (a->is("ftyp") && n == 0 && a->end - a->body >= 4) read_exact(b, out.brand, 4, a->body);
    if (a->is("mdat")) return out;
    if (a->is("moov")) {
      moov = a;
      break;
    }
    at = a->end;
  }
  out.fast_start = true;
  if (!moov) return out;
  out.parsed = true;
  // moov/trak/mdia: the first track whose handler is "vide" gives its mdhd timescale.
  for (uint64_t t = moov->body; t < moov->end;) {
    auto trak = atom_at(b, t, moov->end);
    if (!trak) break;
    t = trak->end;
    if (!trak->is("trak")) continue;
    auto mdia = child(b, trak->body, trak->end, "mdia");
    if (!mdia) continue;
    auto hdlr = child(b, mdia->body, mdia->end, "hdlr");
    auto mdhd = child(b, mdia->body, mdia->end, "mdhd");
    uint8_t handler[12], version[1], scale[4];
    // hdlr: version+flags (4), pre_defined (4), handler_type (4).
    if (!hdlr || hdlr->end - hdlr->body < 12 || !read_exact(b, handler, 12, hdlr->body) ||
        std::memcmp(handler + 8, "vide", 4) != 0) {
      continue;
    }
    // mdhd: version (1) + flags (3), then creation and modification times
    // (4 bytes each in version 0, 8 in version 1), then the timescale.
    if (!mdhd || mdhd->end - mdhd->body < 4 || !read_exact(b, version, 1, mdhd->body)) break;
    uint64_t scale_at = mdhd->body + (version[0] == 1 ? 20 : 12);
    if (scale_at + 4 <= mdhd->end && read_exact(b, scale, 4, scale_at)) out.video_timescale = be32(scale);
    break;
  }
  return out;
}

// libavformat reads through this: a cursor over VideoBytes.
struct Cursor {
  const VideoBytes* bytes;
  uint64_t pos = 0;
};

int read_packet(void* opaque, uint8_t* buf, int size) {
  auto* c = static_cast<Cursor*>(opaque);
  if (c->pos >= c->bytes->size) return AVERROR_EOF;
  ssize_t n = c->bytes->read(buf, size_t(size), c->pos);
  if (n < 0) return AVERROR(EIO);
  if (n == 0) return AVERROR_EOF;
  c->pos += uint64_t(n);
  return int(n);
}

int64_t seek(void* opaque, int64_t offset, int whence) {
  auto* c = static_cast<Cursor*>(opaque);
  if (whence & AVSEEK_SIZE) return int64_t(c->bytes->size);
  whence &= ~AVSEEK_FORCE;
  int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? int64_t(c->pos) : whence == SEEK_END ? int64_t(c->bytes->size) : -1;
  if (base < 0 || base + offset < 0) return -1;
  c->pos = uint64_t(base + offset);
  return int64_t(c->pos);
}

// The demuxer with custom I/O, closed on scope exit.
class Demuxer {
 public:
  Demuxer(const Libav& av, const VideoBytes& bytes) : av_(av), cursor_{&bytes} {}
  ~Demuxer() {
    if (fmt_) av_.avformat_close_input(&fmt_);
    if (io_) {
      av_.av_freep(&io_->buffer);
      av_.avio_context_free(&io_);
    }
  }
  Demuxer(const Demuxer&) = delete;
  Demuxer& operator=(const Demuxer&) = delete;

  // Reads the header (moov) as MP4; false if it does not parse.
  bool open() {
    constexpr int kIoBuffer = 64 << 10;
    auto* buffer = static_cast<unsigned char*>(av_.av_malloc(kIoBuffer));
    if (!buffer) return false;
    io_ = av_.avio_alloc_context(buffer, kIoBuffer, 0, &cursor_, read_packet, nullptr, seek);
    if (!io_) {
      av_.av_free(buffer);
      return false;
    }
    fmt_ = av_.avformat_alloc_context();
    if (!fmt_) return false;
    fmt_->pb = io_;
    fmt_->flags |= AVFMT_FLAG_CUSTOM_IO;
    const AVInputFormat* mp4 = av_.av_find_input_format("mp4");
    // On failure avformat_open_input frees the context itself.
    if (av_.avformat_open_input(&fmt_, nullptr, mp4, nullptr) < 0) {
      fmt_ = nullptr;
      return false;
    }
    return true;
  }
  AVFormatContext* fmt() const { return fmt_; }

 private:
  const Libav& av_;
  Cursor cursor_;
  AVIOContext* io_ = nullptr;
  AVFormatContext* fmt_ = nullptr;
};

}  // namespace

VideoBytes VideoBytes::of_file(int fd, uint64_t size) {
  return {size, [fd](void* buf, size_t n, uint64_t offset) { return ::pread(fd, buf, n, off_t(offset)); }};
}

VideoBytes VideoBytes::of_memory(std::string_view bytes) {
  return {bytes.size(), [bytes](void* buf, size_t n, uint64_t offset) -> ssize_t {
            if (offset >= bytes.size()) return 0;
            size_t take = std::min<size_t>(n, bytes.size() - size_t(offset));
            std::memcpy(buf, bytes.data() + offset, take);
            return ssize_t(take);
          }};
}

VideoCheck inspect_mp4(const VideoBytes& bytes) {
  // §3.3 step 4, in the table's order.
  const Layout layout = walk_atoms(bytes);
  if (!layout.fast_start) return refuse(400, "moov atom not at front of file (not fast-start)");
  if (!layout.parsed) return refuse(400, kInvalid);
  std::string unavailable;
  const Libav* av = libav(&unavailable);
  if (!av) return refuse(503, "video inspection unavailable: " + unavailable);
  Demuxer demuxer(*av, bytes);
  if (!demuxer.open()) return refuse(400, kInvalid);
  if (std::memcmp(layout.brand, "qt  ", 4) == 0) return refuse(415, "unsupported container: only MP4 is accepted");
  const AVStream* video = nullptr;
  for (unsigned i = 0; i < demuxer.fmt()->nb_streams && !video; ++i) {
    if (demuxer.fmt()->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) video = demuxer.fmt()->streams[i];
  }
  if (!video) return refuse(400, kInvalid);  // no video track
  const AVCodecParameters& codec = *video->codecpar;
  if (codec.codec_id != AV_CODEC_ID_H264 || codec.codec_tag != MKTAG('a', 'v', 'c', '1')) {
    return refuse(400, "unsupported video codec: only H.264 (avc1) is accepted");
  }
  if (!layout.video_timescale || *layout.video_timescale == 0 || video->time_base.num <= 0 || video->time_base.den <= 0) {
    return refuse(400, kInvalid);
  }
  if (video->duration == AV_NOPTS_VALUE || video->duration <= 0) return refuse(400, kInvalid);
  // Whole milliseconds, then seconds, as upstream computes them.
  const int64_t ms = av->av_rescale(video->duration, int64_t(video->time_base.num) * 1000, video->time_base.den);
  const double secs = double(ms) / 1000;
  if (secs <= 0) return refuse(400, kInvalid);
  if (secs > kMaxVideoSecs) return refuse(400, "video too long: duration exceeds 600 seconds");
  if (codec.width <= 0 || codec.height <= 0) return refuse(400, kInvalid);
  if (uint32_t(codec.width) > kMaxVideoWidth || uint32_t(codec.height) > kMaxVideoHeight) {
    return refuse(400, "video resolution too high: maximum is 3840x2160");
  }
  return {true, {uint32_t(codec.width), uint32_t(codec.height), secs}, 0, {}};
}

}  // namespace buzz::server
