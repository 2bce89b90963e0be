// Chunked transfer coding, decoded incrementally; see chunked_body.h.
#include "net/chunked_body.h"

#include <algorithm>

#include "net/http.h"

namespace buzz::net {
namespace {

// "1a3f" or "1a3f;name=value": the size, or false. At most 15 hex digits, so
// the size cannot overflow (and is far above any body limit).
bool parse_size_line(std::string_view line, uint64_t* size) {
  size_t digits = 0;
  uint64_t n = 0;
  while (digits < line.size() && hex_digit_value(line[digits]) >= 0) {
    if (digits == 15) return false;
    n = n * 16 + uint64_t(hex_digit_value(line[digits]));
    ++digits;
  }
  if (digits == 0) return false;
  std::string_view rest = line.substr(digits);
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (!rest.empty() && rest.front() != ';') return false;
  *size = n;
  return true;
}

}  // namespace

ChunkedDecoder::Status ChunkedDecoder::feed(std::string_view in, size_t* used, std::string* out) {
  size_t pos = 0;
  for (;;) {
    std::string_view rest = in.substr(pos);
    switch (state_) {
      case State::kDone:
        *used = pos;
        return Status::kDone;
      case State::kData: {
        if (rest.empty()) break;
        size_t take = size_t(std::min<uint64_t>(remaining_, rest.size()));
        out->append(rest.data(), take);
        pos += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kDataEnd;
        continue;
      }
      case State::kDataEnd:
        if (rest.size() < 2) break;
        if (rest[0] != '\r' || rest[1] != '\n') return Status::kError;
        pos += 2;
        state_ = State::kSize;
        continue;
      case State::kSize:
      case State::kTrailer: {
        size_t eol = rest.find("\r\n");
        if (eol == std::string_view::npos) {
          if (rest.size() > kMaxLine) return Status::kError;
          break;
        }
        if (eol > kMaxLine) return Status::kError;
        std::string_view line = rest.substr(0, eol);
        pos += eol + 2;
        if (state_ == State::kTrailer) {
          trailer_bytes_ += eol + 2;
          if (trailer_bytes_ > kMaxTrailerBytes) return Status::kError;
          if (line.empty()) state_ = State::kDone;
          continue;
        }
        if (!parse_size_line(line, &remaining_)) return Status::kError;
        state_ = remaining_ == 0 ? State::kTrailer : State::kData;
        continue;
      }
    }
    *used = pos;
    return Status::kMore;
  }
}

}  // namespace buzz::net
