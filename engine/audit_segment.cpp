// Audit segment format and file operations; see audit_segment.h.
#include "engine/audit_segment.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "engine/crc32c.h"
#include "engine/event_record.h"
#include "engine/file_digest.h"

namespace buzz::engine {
namespace {

constexpr char kMagic[8] = {'B', 'Z', 'A', 'U', 'D', 'S', 'E', 'G'};
constexpr uint16_t kVersion = 1;

uint32_t frame_crc(uint8_t type, std::string_view payload) {
  return crc32c(payload.data(), payload.size(), crc32c(&type, 1));
}

}  // namespace

std::string encode_segment_header(const SegmentHeader& h) {
  std::string out(kMagic, sizeof kMagic);
  put_u16(&out, kVersion);
  put_u16(&out, 0);  // flags, reserved
  put_u64(&out, h.first_seq);
  out.append(reinterpret_cast<const char*>(h.anchor_prev_hash.data()), 32);
  put_u64(&out, uint64_t(h.created_at_us));
  put_u32(&out, crc32c(out.data(), out.size()));
  return out;
}

Result<SegmentHeader> decode_segment_header(std::string_view b) {
  if (b.size() < kSegmentHeaderBytes) return Error{"segment header is truncated"};
  if (std::memcmp(b.data(), kMagic, sizeof kMagic) != 0) return Error{"segment header has the wrong magic"};
  if (crc32c(b.data(), 60) != get_u32(&b[60])) return Error{"segment header CRC mismatch"};
  if (uint16_t version = get_u16(&b[8]); version != kVersion) {
    return Error{"unsupported segment version " + std::to_string(version)};
  }
  SegmentHeader h;
  h.first_seq = get_u64(&b[12]);
  std::memcpy(h.anchor_prev_hash.data(), &b[20], 32);
  h.created_at_us = int64_t(get_u64(&b[52]));
  return h;
}

std::string encode_trailer_payload(const SegmentTrailer& t) {
  std::string out;
  put_u64(&out, t.last_seq);
  put_u64(&out, t.record_count);
  out.append(reinterpret_cast<const char*>(t.last_hash.data()), 32);
  out.append(reinterpret_cast<const char*>(t.file_digest.data()), 32);
  put_u64(&out, uint64_t(t.sealed_at_us));
  return out;
}

Result<SegmentTrailer> decode_trailer_payload(std::string_view p) {
  if (p.size() != kTrailerPayloadBytes) return Error{"trailer payload is not 88 bytes"};
  SegmentTrailer t;
  t.last_seq = get_u64(&p[0]);
  t.record_count = get_u64(&p[8]);
  std::memcpy(t.last_hash.data(), &p[16], 32);
  std::memcpy(t.file_digest.data(), &p[48], 32);
  t.sealed_at_us = int64_t(get_u64(&p[80]));
  return t;
}

void append_frame(std::string& out, FrameType type, std::string_view payload) {
  put_u32(&out, uint32_t(payload.size()));
  out.push_back(char(type));
  out.append(payload);
  put_u32(&out, frame_crc(uint8_t(type), payload));
}

Frame read_frame(std::string_view b, size_t offset) {
  Frame f;
  if (offset >= b.size()) return f;
  const size_t left = b.size() - offset;
  f.status = FrameStatus::kIncomplete;
  if (left < 5) return f;
  const uint64_t len = get_u32(&b[offset]);
  if (len == 0 || len > kMaxFramePayloadBytes) {
    f.status = FrameStatus::kBadLength;
    return f;
  }
  if (left < kFrameOverheadBytes + len) return f;
  const uint8_t type = uint8_t(b[offset + 4]);
  f.payload = b.substr(offset + 5, len);
  if (frame_crc(type, f.payload) != get_u32(&b[offset + 5 + len])) {
    f.status = FrameStatus::kBadCrc;
    return f;
  }
  if (type != uint8_t(FrameType::kEntry) && type != uint8_t(FrameType::kTrailer)) {
    f.status = FrameStatus::kBadType;
    return f;
  }
  f.status = FrameStatus::kOk;
  f.type = FrameType(type);
  f.end = offset + kFrameOverheadBytes + len;
  return f;
}

const char* frame_status_text(FrameStatus status) {
  switch (status) {
    case FrameStatus::kOk: return "ok";
    case FrameStatus::kEnd: return "end of segment";
    case FrameStatus::kIncomplete: return "frame runs past the end of the segment";
    case FrameStatus::kBadLength: return "frame length out of range";
    case FrameStatus::kBadCrc: return "frame CRC mismatch";
    case FrameStatus::kBadType: return "frame has a valid CRC but an unknown type";
  }
  return "?";
}

size_t find_valid_frame(std::string_view bytes, size_t from) {
  for (size_t at = from; at < bytes.size(); ++at) {
    if (read_frame(bytes, at).status == FrameStatus::kOk) return at;
  }
  return SIZE_MAX;
}

std::string segment_file_name(uint64_t first_seq) {
  char name[32];
  std::snprintf(name, sizeof name, "seg-%020llu.bza", static_cast<unsigned long long>(first_seq));
  return name;
}

Result<std::vector<SegmentFile>> list_segments(const std::string& dir) {
  std::vector<SegmentFile> out;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return out;
  for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = item.path().filename().string();
    // Exactly "seg-" + 20 digits + ".bza": temporaries and other files are not segments.
    if (name.size() != 28 || name.rfind("seg-", 0) != 0 || name.substr(24) != ".bza") continue;
    std::string_view digits = std::string_view(name).substr(4, 20);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    out.push_back({std::stoull(std::string(digits)), std::move(name)});
  }
  if (ec) return Error{"cannot list " + dir + ": " + ec.message()};
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first_seq < b.first_seq; });
  return out;
}

Result<std::string> read_whole_file(const std::string& path) {
  std::string out;
  if (Status s = read_file_chunks(path, [&](std::string_view bytes) { out.append(bytes); }); !s) return Error{s.error()};
  return out;
}

Result<SegmentTrailer> read_segment_trailer(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open", path);
  struct stat st;
  std::string tail(kTrailerFrameBytes, '\0');
  const bool long_enough = ::fstat(fd, &st) == 0 && uint64_t(st.st_size) >= kSegmentHeaderBytes + kTrailerFrameBytes;
  const bool read_ok =
      long_enough && ::pread(fd, tail.data(), tail.size(), st.st_size - off_t(tail.size())) == ssize_t(tail.size());
  ::close(fd);
  Frame f = read_frame(tail, 0);
  if (!read_ok || f.status != FrameStatus::kOk || f.type != FrameType::kTrailer || f.end != tail.size()) {
    return Error{"segment " + path + " is not sealed (no valid trailer at its end)"};
  }
  return decode_trailer_payload(f.payload);
}

Status write_at(int fd, std::string_view data, uint64_t offset) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("audit segment write failed: ") + std::strerror(errno)};
    data.remove_prefix(size_t(n));
    offset += uint64_t(n);
  }
  return {};
}

Result<std::string> create_segment(const std::string& dir, const SegmentHeader& header) {
  const std::string path = dir + "/" + segment_file_name(header.first_seq);
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_error("cannot create", tmp);
  Status s = write_at(fd, encode_segment_header(header), 0);
  if (s && ::fsync(fd) != 0) s = errno_error("cannot fsync", tmp);
  ::close(fd);
  if (s && ::rename(tmp.c_str(), path.c_str()) != 0) s = errno_error("cannot rename", tmp);
  if (s) s = fsync_dir(dir);
  if (!s) return Error{s.error()};
  return path;
}

}  // namespace buzz::engine
