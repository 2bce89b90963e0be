// The chunked request body decoder (net/chunked_body.h): sizes in hex with
// extensions, bytes arriving in any split, trailers, and every malformed form
// refused.
#include "net/chunked_body.h"

#include <gtest/gtest.h>

#include <string>

namespace buzz::net {
namespace {

// Feeds `wire` in pieces of `step` bytes, as a connection would (an unused
// tail is offered again with the next bytes). The body, or "ERROR".
std::string decode(const std::string& wire, size_t step, size_t* left_over = nullptr) {
  ChunkedDecoder d;
  std::string body, pending;
  for (size_t at = 0; at < wire.size(); at += step) {
    pending += wire.substr(at, step);
    size_t used = 0;
    ChunkedDecoder::Status st = d.feed(pending, &used, &body);
    if (st == ChunkedDecoder::Status::kError) return "ERROR";
    pending.erase(0, used);
    if (st == ChunkedDecoder::Status::kDone) {
      if (left_over) *left_over = pending.size() + (wire.size() > at + step ? wire.size() - at - step : 0);
      return body;
    }
  }
  return "INCOMPLETE";
}

TEST(ChunkedBody, DecodesInAnySplit) {
  const std::string wire = "5\r\nhello\r\n1A;name=value\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n";
  for (size_t step = 1; step <= wire.size(); ++step) {
    size_t left = 99;
    EXPECT_EQ(decode(wire, step, &left), "helloabcdefghijklmnopqrstuvwxyz") << step;
    EXPECT_EQ(left, 0u) << step;
  }
  size_t left = 0;
  EXPECT_EQ(decode("0\r\n\r\nGET / HTTP/1.1\r\n", 64, &left), "");
  EXPECT_EQ(left, 16u);  // the next request is not consumed
}

TEST(ChunkedBody, MalformedIsRefused) {
  for (const char* wire : {"zz\r\n", "\r\n", "5\r\nhelloXX", "5 x\r\nhello\r\n", "-1\r\n", "1234567890abcdef\r\n"}) {
    EXPECT_EQ(decode(wire, 64), "ERROR") << wire;
  }
  EXPECT_EQ(decode(std::string(ChunkedDecoder::kMaxLine + 1, '1'), 8192), "ERROR");
  EXPECT_EQ(decode("0\r\n" + std::string(ChunkedDecoder::kMaxTrailerBytes, 'x') + "\r\n", 8192), "ERROR");
  EXPECT_EQ(decode("5\r\nhel", 64), "INCOMPLETE");
}

}  // namespace
}  // namespace buzz::net
