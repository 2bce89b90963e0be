// A chunked request body (RFC 9112 §7.1) decoded as it arrives, for bodies
// streamed to a file (body_spool.h); buffered requests still refuse chunked
// bodies with 501. Chunk extensions and trailer fields are read and ignored.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace buzz::net {

class ChunkedDecoder {
 public:
  enum class Status { kMore, kDone, kError };
  // Consumes what it can of `in`: *used is how many bytes (a partial size or
  // trailer line is left for the next call, with more bytes after it), and
  // the body bytes found are appended to `out`. kDone once the last chunk and
  // the trailer have arrived (nothing after them is consumed); kError for a
  // malformed chunk size, a missing CRLF, or a line longer than kMaxLine.
  Status feed(std::string_view in, size_t* used, std::string* out);

  static constexpr size_t kMaxLine = 4096;
  static constexpr size_t kMaxTrailerBytes = 16 * 1024;

 private:
  enum class State : uint8_t { kSize, kData, kDataEnd, kTrailer, kDone };
  State state_ = State::kSize;
  uint64_t remaining_ = 0;       // of the current chunk
  size_t trailer_bytes_ = 0;
};

}  // namespace buzz::net
