// Unit tests for net/websocket: header parsing (all length forms, every
// truncation point, protocol errors), masking, the handshake accept key,
// close payloads, the reply to a peer's close and UTF-8 validation. Pure
// functions, no sockets.
// Keep the RFC 6455 example vectors verbatim; they pin interoperability.
#include "net/websocket.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace buzz::net::ws {
namespace {

std::vector<uint8_t> wire_bytes(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int b : v) out.push_back(static_cast<uint8_t>(b));
  return out;
}

HeaderStatus parse_frame_header(const std::vector<uint8_t>& b, FrameHeader* h) {
  return parse_header(b.data(), b.size(), h);
}

TEST(WebSocketHeader, SevenBitUnmasked) {
  // RFC 6455 5.7: single-frame unmasked text "Hello".
  auto b = wire_bytes({0x81, 0x05, 'H', 'e', 'l', 'l', 'o'});
  FrameHeader h{};
  ASSERT_EQ(parse_frame_header(b, &h), HeaderStatus::kOk);
  EXPECT_TRUE(h.fin);
  EXPECT_EQ(h.opcode, Opcode::kText);
  EXPECT_FALSE(h.masked);
  EXPECT_EQ(h.payload_len, 5u);
  EXPECT_EQ(h.header_len, 2u);
}

TEST(WebSocketHeader, SevenBitMaskedRfcExample) {
  // RFC 6455 5.7: masked "Hello".
  auto b = wire_bytes({0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58});
  FrameHeader h{};
  ASSERT_EQ(parse_frame_header(b, &h), HeaderStatus::kOk);
  EXPECT_TRUE(h.masked);
  EXPECT_EQ(h.header_len, 6u);
  EXPECT_EQ(h.payload_len, 5u);
  apply_mask(b.data() + h.header_len, h.payload_len, h.mask);
  EXPECT_EQ(std::string(b.begin() + 6, b.end()), "Hello");
}

TEST(WebSocketHeader, SixteenBitLength) {
  auto b = wire_bytes({0x82, 0x7E, 0x01, 0x00});  // binary, 256 bytes
  FrameHeader h{};
  ASSERT_EQ(parse_frame_header(b, &h), HeaderStatus::kOk);
  EXPECT_EQ(h.opcode, Opcode::kBinary);
  EXPECT_EQ(h.payload_len, 256u);
  EXPECT_EQ(h.header_len, 4u);
}

TEST(WebSocketHeader, SixtyFourBitLengthMasked) {
  auto b = wire_bytes({0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4});  // 65536
  FrameHeader h{};
  ASSERT_EQ(parse_frame_header(b, &h), HeaderStatus::kOk);
  EXPECT_EQ(h.payload_len, 65536u);
  EXPECT_EQ(h.header_len, 14u);
  EXPECT_EQ(h.mask[0], 1);
  EXPECT_EQ(h.mask[3], 4);
}

TEST(WebSocketHeader, NonMinimalLengthAccepted) {
  auto b16 = wire_bytes({0x81, 0x7E, 0x00, 0x05});
  auto b64 = wire_bytes({0x81, 0x7F, 0, 0, 0, 0, 0, 0, 0, 5});
  FrameHeader h{};
  ASSERT_EQ(parse_frame_header(b16, &h), HeaderStatus::kOk);
  EXPECT_EQ(h.payload_len, 5u);
  ASSERT_EQ(parse_frame_header(b64, &h), HeaderStatus::kOk);
  EXPECT_EQ(h.payload_len, 5u);
  EXPECT_EQ(h.header_len, 10u);
}

TEST(WebSocketHeader, NeedMoreAtEveryTruncation) {
  const std::vector<std::vector<uint8_t>> headers = {
      wire_bytes({0x81, 0x05}),
      wire_bytes({0x81, 0x85, 1, 2, 3, 4}),
      wire_bytes({0x82, 0x7E, 0x01, 0x00}),
      wire_bytes({0x82, 0xFE, 0x01, 0x00, 1, 2, 3, 4}),
      wire_bytes({0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0}),
      wire_bytes({0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4}),
  };
  for (const auto& full : headers) {
    FrameHeader h{};
    for (size_t n = 0; n < full.size(); ++n) {
      EXPECT_EQ(parse_header(full.data(), n, &h), HeaderStatus::kNeedMore)
          << "header size " << full.size() << " truncated to " << n;
    }
    EXPECT_EQ(parse_header(full.data(), full.size(), &h), HeaderStatus::kOk);
    EXPECT_EQ(h.header_len, full.size());
  }
}

TEST(WebSocketHeader, ReservedBitsAreErrors) {
  FrameHeader h{};
  for (int rsv : {0x40, 0x20, 0x10}) {
    auto b = wire_bytes({0x81 | rsv, 0x00});
    EXPECT_EQ(parse_frame_header(b, &h), HeaderStatus::kProtocolError) << rsv;
    // Detected from the first byte alone.
    EXPECT_EQ(parse_header(b.data(), 1, &h), HeaderStatus::kProtocolError);
  }
}

TEST(WebSocketHeader, UnknownOpcodesAreErrors) {
  FrameHeader h{};
  for (int op : {3, 4, 5, 6, 7, 11, 12, 13, 14, 15}) {
    auto b = wire_bytes({0x80 | op, 0x00});
    EXPECT_EQ(parse_frame_header(b, &h), HeaderStatus::kProtocolError) << op;
  }
}

TEST(WebSocketHeader, ControlFrameRules) {
  FrameHeader h{};
  // 125 bytes is the maximum allowed control payload.
  EXPECT_EQ(parse_frame_header(wire_bytes({0x89, 125}), &h), HeaderStatus::kOk);
  EXPECT_EQ(parse_frame_header(wire_bytes({0x89, 126, 0x00, 0x7E}), &h), HeaderStatus::kProtocolError);
  EXPECT_EQ(parse_frame_header(wire_bytes({0x88, 127, 0, 0, 0, 0, 0, 0, 0, 0x7E}), &h),
            HeaderStatus::kProtocolError);
  // Fragmented control frames (fin = 0) are errors.
  EXPECT_EQ(parse_frame_header(wire_bytes({0x09, 0x00}), &h), HeaderStatus::kProtocolError);
  EXPECT_EQ(parse_frame_header(wire_bytes({0x08, 0x00}), &h), HeaderStatus::kProtocolError);
  EXPECT_EQ(parse_frame_header(wire_bytes({0x0A, 0x00}), &h), HeaderStatus::kProtocolError);
  // Data frames may be fragmented.
  EXPECT_EQ(parse_frame_header(wire_bytes({0x01, 0x00}), &h), HeaderStatus::kOk);
  EXPECT_FALSE(h.fin);
  EXPECT_EQ(parse_frame_header(wire_bytes({0x00, 0x00}), &h), HeaderStatus::kOk);
  EXPECT_EQ(h.opcode, Opcode::kContinuation);
}

TEST(WebSocketHeader, SixtyFourBitTopBitIsError) {
  FrameHeader h{};
  auto b = wire_bytes({0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(parse_frame_header(b, &h), HeaderStatus::kProtocolError);
  EXPECT_EQ(parse_header(b.data(), 3, &h), HeaderStatus::kProtocolError);
}

TEST(WebSocketHeader, EncodeParseRoundTrip) {
  const uint8_t mask[4] = {0xde, 0xad, 0xbe, 0xef};
  for (uint64_t len : {0ull, 1ull, 125ull, 126ull, 65535ull, 65536ull, (1ull << 40)}) {
    for (bool masked : {false, true}) {
      for (bool fin : {false, true}) {
        uint8_t buf[kMaxHeaderBytes];
        size_t n = encode_header(buf, Opcode::kBinary, len, fin, masked ? mask : nullptr);
        FrameHeader h{};
        ASSERT_EQ(parse_header(buf, n, &h), HeaderStatus::kOk) << len;
        EXPECT_EQ(h.header_len, n);
        EXPECT_EQ(h.payload_len, len);
        EXPECT_EQ(h.fin, fin);
        EXPECT_EQ(h.masked, masked);
        EXPECT_EQ(h.opcode, Opcode::kBinary);
        if (masked) {
          EXPECT_EQ(0, std::memcmp(h.mask, mask, 4));
        }
        size_t expect = (len <= 125 ? 2 : len <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0);
        EXPECT_EQ(n, expect);
      }
    }
  }
}

TEST(WebSocketMask, MatchesNaiveAndRoundTrips) {
  std::mt19937 rng(42);
  const uint8_t mask[4] = {0x12, 0x34, 0x56, 0x78};
  for (size_t len : {0u, 1u, 3u, 7u, 8u, 9u, 31u, 32u, 33u, 100u, 1000u}) {
    std::vector<uint8_t> orig(len);
    for (auto& b : orig) b = static_cast<uint8_t>(rng());
    for (uint64_t offset = 0; offset < 8; ++offset) {
      std::vector<uint8_t> fast = orig;
      apply_mask(fast.data(), len, mask, offset);
      for (size_t i = 0; i < len; ++i) {
        ASSERT_EQ(fast[i], orig[i] ^ mask[(offset + i) % 4]) << len << "/" << offset;
      }
      apply_mask(fast.data(), len, mask, offset);
      EXPECT_EQ(fast, orig);
    }
  }
}

TEST(WebSocketMask, PiecewiseEqualsWhole) {
  const uint8_t mask[4] = {0xa1, 0xb2, 0xc3, 0xd4};
  std::vector<uint8_t> data(257);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  std::vector<uint8_t> whole = data;
  apply_mask(whole.data(), whole.size(), mask);
  // Unmask in uneven pieces, as a reader does when bytes trickle in.
  std::vector<uint8_t> pieces = data;
  size_t pos = 0;
  for (size_t step : {1u, 3u, 10u, 5u, 64u, 17u}) {
    apply_mask(pieces.data() + pos, step, mask, pos);
    pos += step;
  }
  apply_mask(pieces.data() + pos, pieces.size() - pos, mask, pos);
  EXPECT_EQ(pieces, whole);
}

TEST(WebSocketHandshake, AcceptKeyRfcExample) {
  // RFC 6455 section 1.3 (also: openssl dgst -sha1 -binary | base64).
  EXPECT_EQ(accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketClose, Payload) {
  EXPECT_EQ(close_payload(1000), std::string("\x03\xE8", 2));
  EXPECT_EQ(close_payload(1002, "bad"), std::string("\x03\xEA" "bad", 5));
  EXPECT_EQ(close_payload(4000, ""), std::string("\x0F\xA0", 2));
}

TEST(WebSocketClose, ReplyEchoesCodesAPeerMaySend) {
  EXPECT_EQ(close_reply_code(""), 1000);
  for (uint16_t code : {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4000, 4999}) {
    EXPECT_EQ(close_reply_code(close_payload(code)), code) << code;
    EXPECT_EQ(close_reply_code(close_payload(code, "bye \xc3\xa9")), code) << code;
  }
}

TEST(WebSocketClose, MalformedCloseIsAProtocolError) {
  EXPECT_EQ(close_reply_code(std::string("\x03", 1)), 1002);  // one byte: half a code
  for (uint16_t code : {0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535}) {
    EXPECT_EQ(close_reply_code(close_payload(code)), 1002) << code;
  }
  EXPECT_EQ(close_reply_code(close_payload(1000, "\xff")), 1002);      // reason not UTF-8
  EXPECT_EQ(close_reply_code(close_payload(1000, "\xed\xa0\x80")), 1002);  // a surrogate
}

TEST(WebSocketUtf8, ValidInputs) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii that is longer than eight bytes"));
  EXPECT_TRUE(is_valid_utf8("\xC2\x80"));                   // U+0080
  EXPECT_TRUE(is_valid_utf8("h\xC3\xA9llo w\xC3\xB6rld"));  // é, ö
  EXPECT_TRUE(is_valid_utf8("\xE0\xA0\x80"));               // U+0800
  EXPECT_TRUE(is_valid_utf8("\xED\x9F\xBF"));               // U+D7FF
  EXPECT_TRUE(is_valid_utf8("\xEE\x80\x80"));               // U+E000
  EXPECT_TRUE(is_valid_utf8("\xEF\xBF\xBF"));               // U+FFFF
  EXPECT_TRUE(is_valid_utf8("\xF0\x90\x80\x80"));           // U+10000
  EXPECT_TRUE(is_valid_utf8("\xF0\x9F\x90\x9D buzz"));      // bee emoji
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));           // U+10FFFF
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));       // NUL is valid
  EXPECT_TRUE(is_valid_utf8("\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5"));  // κόσμε
}

TEST(WebSocketUtf8, InvalidInputs) {
  EXPECT_FALSE(is_valid_utf8("\x80"));                  // lone continuation
  EXPECT_FALSE(is_valid_utf8("abcdefgh\xBF"));          // after fast path
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));              // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xC1\xBF"));              // overlong
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\xAF"));          // overlong 3-byte
  EXPECT_FALSE(is_valid_utf8("\xE0\x9F\xBF"));          // overlong U+07FF
  EXPECT_FALSE(is_valid_utf8("\xF0\x80\x80\xAF"));      // overlong 4-byte
  EXPECT_FALSE(is_valid_utf8("\xF0\x8F\xBF\xBF"));      // overlong U+FFFF
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));          // U+D800
  EXPECT_FALSE(is_valid_utf8("\xED\xBF\xBF"));          // U+DFFF
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));      // U+110000
  EXPECT_FALSE(is_valid_utf8("\xF5\x80\x80\x80"));      // F5 lead
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xFE"));
  EXPECT_FALSE(is_valid_utf8("\xC3"));                  // truncated 2-byte
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));              // truncated 3-byte
  EXPECT_FALSE(is_valid_utf8("\xF0\x9F\x90"));          // truncated 4-byte
  EXPECT_FALSE(is_valid_utf8("\xC3\x28"));              // bad continuation
  EXPECT_FALSE(is_valid_utf8("\xE2\x28\xA1"));
  EXPECT_FALSE(is_valid_utf8("\xF0\x9F\x28\x9D"));
  EXPECT_FALSE(is_valid_utf8("\xCE\xBA\xE1\xBD\xB9\xCF\x83\xCE\xBC\xCE\xB5\xED\xA0\x80" "edited"));
}

}  // namespace
}  // namespace buzz::net::ws
