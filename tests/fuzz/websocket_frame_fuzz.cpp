// Fuzz target: WebSocket frame headers and the UTF-8 check on binary messages.
//
// Invariants beyond "no crash":
// - a header the parser accepts fits in what it was given, and encoding the
//   same fields again yields a header that parses to the same fields;
// - masking twice with the same key and offset restores the payload;
// - our UTF-8 validator agrees with simdjson's on every input;
// - the reply to any close body is a code an endpoint may put on the wire.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "net/websocket.h"
#include "tests/fuzz/fuzz_check.h"

using namespace buzz::net;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  FUZZ_CHECK(ws::is_valid_utf8(text) == simdjson::validate_utf8(text.data(), text.size()));
  uint16_t reply = ws::close_reply_code(text);
  FUZZ_CHECK(reply >= 1000 && reply < 5000 && reply != 1005 && reply != 1006 && reply != 1015);

  ws::FrameHeader h;
  if (ws::parse_header(data, size, &h) == ws::HeaderStatus::kOk) {
    FUZZ_CHECK(h.header_len >= 2 && h.header_len <= ws::kMaxHeaderBytes && h.header_len <= size);
    if (ws::is_control(h.opcode)) FUZZ_CHECK(h.fin && h.payload_len <= ws::kMaxControlPayload);
    uint8_t again[ws::kMaxHeaderBytes];
    size_t n = ws::encode_header(again, h.opcode, h.payload_len, h.fin, h.masked ? h.mask : nullptr);
    ws::FrameHeader r;
    FUZZ_CHECK(ws::parse_header(again, n, &r) == ws::HeaderStatus::kOk);
    FUZZ_CHECK(r.header_len == n && r.fin == h.fin && r.opcode == h.opcode && r.masked == h.masked &&
               r.payload_len == h.payload_len && std::memcmp(r.mask, h.mask, 4) == 0);

    std::vector<uint8_t> payload(data + h.header_len, data + size);
    uint64_t offset = size;  // any offset: masking must be its own inverse at every phase
    ws::apply_mask(payload.data(), payload.size(), h.mask, offset);
    ws::apply_mask(payload.data(), payload.size(), h.mask, offset);
    FUZZ_CHECK(payload.empty() || std::memcmp(payload.data(), data + h.header_len, payload.size()) == 0);
  }
  return 0;
}
