// Ogg Opus tracks; see ogg_track.h.
#include "server/huddle/ogg_track.h"

#include <fcntl.h>
#include <opus/opus.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace buzz::server::huddle {
namespace {

using engine::Error;
using engine::Status;

Error io_error(const char* what, const std::string& path) {
  return Error{std::string(what) + " " + path + ": " + std::strerror(errno)};
}

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

// RFC 7845 §5.1: version 1, one channel, no pre-skip (the packets come from
// encoders already running), 48 kHz, no gain, mapping family 0.
std::string opus_head() {
  std::string h = "OpusHead";
  h.push_back(1);
  h.push_back(1);
  put_le(h, 0, 2);
  put_le(h, uint64_t(kOpusRate), 4);
  put_le(h, 0, 2);
  h.push_back(0);
  return h;
}

// RFC 7845 §5.2.
std::string opus_tags(const std::vector<std::string>& comments) {
  constexpr std::string_view kVendor = "buzz (packets as received)";
  std::string t = "OpusTags";
  put_le(t, kVendor.size(), 4);
  t += kVendor;
  put_le(t, comments.size(), 4);
  for (const std::string& c : comments) {
    put_le(t, c.size(), 4);
    t += c;
  }
  return t;
}

// One page: its header and body, whole, or an error.
Status write_page(int fd, const std::string& path, const ogg_page& og) {
  std::string page(reinterpret_cast<const char*>(og.header), size_t(og.header_len));
  page.append(reinterpret_cast<const char*>(og.body), size_t(og.body_len));
  for (size_t done = 0; done < page.size();) {
    ssize_t n = ::write(fd, page.data() + done, page.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error("cannot write", path);
    done += size_t(n);
  }
  return {};
}

}  // namespace

const std::string& silence_packet() {
  static const std::string packet = [] {
    int err = 0;
    OpusEncoder* enc = opus_encoder_create(int(kOpusRate), 1, OPUS_APPLICATION_VOIP, &err);
    std::array<int16_t, kSilenceSamples> zeros{};
    std::array<unsigned char, 256> out{};
    opus_int32 n = enc ? opus_encode(enc, zeros.data(), int(kSilenceSamples), out.data(), int(out.size())) : -1;
    if (enc) opus_encoder_destroy(enc);
    // A lone TOC byte (CELT, 20 ms, one empty frame) is a valid packet a decoder conceals as silence.
    return n > 0 ? std::string(reinterpret_cast<const char*>(out.data()), size_t(n)) : std::string(1, char(0xf8));
  }();
  return packet;
}

int opus_samples(std::string_view packet) {
  int n = opus_packet_get_nb_samples(reinterpret_cast<const unsigned char*>(packet.data()), opus_int32(packet.size()),
                                     int(kOpusRate));
  return n > 0 ? n : 0;
}

OggTrack::OggTrack(std::string path, int fd, uint32_t serial) : path_(std::move(path)), fd_(fd) {
  ogg_stream_init(&os_, int(serial));
}

OggTrack::~OggTrack() {
  ogg_stream_clear(&os_);
  if (fd_ >= 0) ::close(fd_);
}

engine::Result<std::unique_ptr<OggTrack>> OggTrack::create(const std::string& path, uint32_t serial,
                                                            const std::vector<std::string>& comments) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return io_error("cannot create", path);
  std::unique_ptr<OggTrack> t(new OggTrack(path, fd, serial));
  // Each head packet on a page of its own (RFC 7845 §3).
  if (Status s = t->put(opus_head(), 0, false); !s) return Error{s.error()};
  if (Status s = t->write_pages(true); !s) return Error{s.error()};
  if (Status s = t->put(opus_tags(comments), 0, false); !s) return Error{s.error()};
  if (Status s = t->write_pages(true); !s) return Error{s.error()};
  return t;
}

engine::Result<std::unique_ptr<OggTrack>> OggTrack::resume(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open", path);
  ogg_sync_state oy;
  ogg_sync_init(&oy);
  int pages = 0, serial = 0;
  long last_pageno = -1, packets = 0;
  int64_t granule = 0;
  uint64_t whole = 0;  // bytes up to the end of the last whole page
  bool eos = false, broken = false;
  for (;;) {
    ogg_page og;
    long got = ogg_sync_pageseek(&oy, &og);
    if (got > 0) {
      if (pages > 0 && ogg_page_serialno(&og) != serial) break;
      serial = ogg_page_serialno(&og);
      ++pages;
      whole += uint64_t(got);
      last_pageno = ogg_page_pageno(&og);
      packets += ogg_page_packets(&og);
      if (ogg_page_granulepos(&og) >= 0) granule = ogg_page_granulepos(&og);
      eos = ogg_page_eos(&og);
      continue;
    }
    if (got < 0) break;  // bytes that are no page: everything from here on is cut
    char* buf = ogg_sync_buffer(&oy, 65536);
    ssize_t n = ::read(fd, buf, 65536);
    if (n < 0) {
      if (errno == EINTR) continue;
      broken = true;
      break;
    }
    if (n == 0) break;  // the end: a torn page, if any, is what is left in the sync buffer
    ogg_sync_wrote(&oy, long(n));
  }
  ogg_sync_clear(&oy);
  if (broken) {
    ::close(fd);
    return io_error("cannot read", path);
  }
  if (::ftruncate(fd, off_t(whole)) != 0 || ::lseek(fd, 0, SEEK_END) < 0) {
    ::close(fd);
    return io_error("cannot truncate", path);
  }
  if (pages < 2) {
    ::close(fd);
    return std::unique_ptr<OggTrack>();
  }
  if (eos) {
    ::close(fd);
    fd = -1;
  }
  std::unique_ptr<OggTrack> t(new OggTrack(path, fd, uint32_t(serial)));
  t->os_.b_o_s = 1;  // the first page is written already
  t->os_.pageno = last_pageno + 1;
  t->os_.packetno = packets;
  t->os_.granulepos = granule;
  t->granule_ = granule;
  t->bytes_ = whole;
  return t;
}

Status OggTrack::put(std::string_view packet, int samples, bool eos) {
  granule_ += samples;
  ogg_packet op{};
  op.packet = reinterpret_cast<unsigned char*>(const_cast<char*>(packet.data()));
  op.bytes = long(packet.size());
  op.e_o_s = eos ? 1 : 0;
  op.granulepos = granule_;
  if (ogg_stream_packetin(&os_, &op) != 0) return Error{"ogg: cannot add a packet to " + path_};
  pending_ += packet.size();
  return write_pages(false);
}

Status OggTrack::add(std::string_view packet, int samples) { return put(packet, samples, false); }

Status OggTrack::pad_to(int64_t granule) {
  while (granule_ + kSilenceSamples <= granule) {
    if (Status s = put(silence_packet(), int(kSilenceSamples), false); !s) return s;
  }
  return {};
}

Status OggTrack::flush() { return ended() ? Status() : write_pages(true); }

Status OggTrack::finish(int64_t granule) {
  if (ended()) return {};
  if (Status s = pad_to(granule - kSilenceSamples); !s) return s;
  if (Status s = put(silence_packet(), int(kSilenceSamples), true); !s) return s;
  if (Status s = write_pages(true); !s) return s;
  if (::fsync(fd_) != 0) return io_error("cannot fsync", path_);
  ::close(fd_);
  fd_ = -1;
  return {};
}

Status OggTrack::write_pages(bool force) {
  ogg_page og;
  while (force ? ogg_stream_flush(&os_, &og) : ogg_stream_pageout(&os_, &og)) {
    if (Status s = write_page(fd_, path_, og); !s) return s;
    bytes_ += uint64_t(og.header_len + og.body_len);
    pending_ -= std::min(pending_, uint64_t(og.body_len));  // a page's body is its packets' bytes
  }
  return {};
}

}  // namespace buzz::server::huddle
