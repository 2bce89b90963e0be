// RFC 6455 codec primitives; see net/websocket.h for the contract.
// Used by the server connection state machine and tools/client/ws_client.
// Invariant: parse_header never reads past data[len) and never reports kOk
// for a header it has not fully seen; apply_mask is correct for any offset.
#include "net/websocket.h"

#include <openssl/evp.h>

#include <cstring>

namespace buzz::net::ws {
namespace {

constexpr std::string_view kHandshakeGuid =
    "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

bool known_opcode(uint8_t op) {
  switch (op) {
    case 0: case 1: case 2: case 8: case 9: case 10:
      return true;
    default:
      return false;
  }
}

inline bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

HeaderStatus parse_header(const uint8_t* data, size_t len, FrameHeader* out) {
  if (len < 1) return HeaderStatus::kNeedMore;
  const uint8_t b0 = data[0];
  // RSV1-3 must be zero: we negotiate no extensions.
  if (b0 & 0x70) return HeaderStatus::kProtocolError;
  const uint8_t op = b0 & 0x0F;
  if (!known_opcode(op)) return HeaderStatus::kProtocolError;
  const bool fin = (b0 & 0x80) != 0;
  const bool control = (op & 0x8) != 0;
  if (control && !fin) return HeaderStatus::kProtocolError;

  if (len < 2) return HeaderStatus::kNeedMore;
  const uint8_t b1 = data[1];
  const bool masked = (b1 & 0x80) != 0;
  const uint8_t len7 = b1 & 0x7F;
  // Control frames must fit in the 7-bit form (<= 125).
  if (control && len7 > kMaxControlPayload) return HeaderStatus::kProtocolError;

  const size_t ext = len7 == 126 ? 2 : (len7 == 127 ? 8 : 0);
  // Report a top-bit 64-bit length as soon as that byte is visible.
  if (len7 == 127 && len >= 3 && (data[2] & 0x80)) {
    return HeaderStatus::kProtocolError;
  }
  const size_t header_len = 2 + ext + (masked ? 4 : 0);
  if (len < header_len) return HeaderStatus::kNeedMore;

  uint64_t payload_len = len7;
  if (ext != 0) {
    payload_len = 0;
    for (size_t i = 0; i < ext; ++i) payload_len = (payload_len << 8) | data[2 + i];
  }

  out->fin = fin;
  out->opcode = static_cast<Opcode>(op);
  out->masked = masked;
  if (masked) {
    std::memcpy(out->mask, data + 2 + ext, 4);
  } else {
    std::memset(out->mask, 0, 4);
  }
  out->payload_len = payload_len;
  out->header_len = header_len;
  return HeaderStatus::kOk;
}

void apply_mask(uint8_t* data, size_t len, const uint8_t mask[4],
                uint64_t offset) {
  // Rotate the mask so that m[0] applies to data[0].
  uint8_t m[4];
  for (size_t i = 0; i < 4; ++i) m[i] = mask[(offset + i) & 3];

  size_t i = 0;
  if (len >= 8) {
    const uint8_t m8[8] = {m[0], m[1], m[2], m[3], m[0], m[1], m[2], m[3]};
    uint64_t mw;
    std::memcpy(&mw, m8, 8);  // byte order independent: same bytes in memory
    for (; i + 32 <= len; i += 32) {
      uint64_t w[4];
      std::memcpy(w, data + i, 32);
      w[0] ^= mw; w[1] ^= mw; w[2] ^= mw; w[3] ^= mw;
      std::memcpy(data + i, w, 32);
    }
    for (; i + 8 <= len; i += 8) {
      uint64_t w;
      std::memcpy(&w, data + i, 8);
      w ^= mw;
      std::memcpy(data + i, &w, 8);
    }
  }
  // i is a multiple of 8 here, so m[i & 3] stays in phase.
  for (; i < len; ++i) data[i] ^= m[i & 3];
}

size_t encode_header(uint8_t* out, Opcode op, uint64_t payload_len, bool fin,
                     const uint8_t* mask) {
  out[0] = static_cast<uint8_t>((fin ? 0x80 : 0x00) | static_cast<uint8_t>(op));
  const uint8_t mask_bit = mask != nullptr ? 0x80 : 0x00;
  size_t n = 2;
  if (payload_len <= 125) {
    out[1] = static_cast<uint8_t>(mask_bit | payload_len);
  } else if (payload_len <= 0xFFFF) {
    out[1] = mask_bit | 126;
    out[2] = static_cast<uint8_t>(payload_len >> 8);
    out[3] = static_cast<uint8_t>(payload_len);
    n = 4;
  } else {
    out[1] = mask_bit | 127;
    for (size_t i = 0; i < 8; ++i) {
      out[2 + i] = static_cast<uint8_t>(payload_len >> (56 - 8 * i));
    }
    n = 10;
  }
  if (mask != nullptr) {
    std::memcpy(out + n, mask, 4);
    n += 4;
  }
  return n;
}

std::string accept_key(std::string_view client_key) {
  std::string input;
  input.reserve(client_key.size() + kHandshakeGuid.size());
  input.append(client_key);
  input.append(kHandshakeGuid);

  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  if (EVP_Digest(input.data(), input.size(), digest, &digest_len, EVP_sha1(),
                 nullptr) != 1) {
    return {};  // only on OpenSSL failure; the handshake then fails to match
  }
  // base64 of 20 bytes is 28 chars; EVP_EncodeBlock also writes a NUL.
  unsigned char encoded[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(encoded, digest, static_cast<int>(digest_len));
  return std::string(reinterpret_cast<const char*>(encoded),
                     static_cast<size_t>(n));
}

std::string close_payload(uint16_t code, std::string_view reason) {
  std::string out;
  out.reserve(2 + reason.size());
  out.push_back(static_cast<char>(code >> 8));
  out.push_back(static_cast<char>(code & 0xFF));
  out.append(reason);
  return out;
}

uint16_t close_reply_code(std::string_view body) {
  if (body.empty()) return 1000;
  if (body.size() == 1 || !is_valid_utf8(body.substr(2))) return 1002;
  const uint16_t code = uint16_t(uint8_t(body[0]) << 8 | uint8_t(body[1]));
  const bool sendable = (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
  return sendable ? code : 1002;
}

bool is_valid_utf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    // ASCII fast path: skip 8 bytes at a time while no high bit is set.
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    const uint8_t c = p[i];
    if (c < 0x80) {
      ++i;
    } else if (c < 0xC2) {
      return false;  // stray continuation byte, or overlong 2-byte (C0/C1)
    } else if (c < 0xE0) {
      if (i + 1 >= n || !is_cont(p[i + 1])) return false;
      i += 2;
    } else if (c < 0xF0) {
      if (i + 2 >= n) return false;
      const uint8_t c1 = p[i + 1];
      if (!is_cont(c1) || !is_cont(p[i + 2])) return false;
      if (c == 0xE0 && c1 < 0xA0) return false;   // overlong
      if (c == 0xED && c1 >= 0xA0) return false;  // UTF-16 surrogate
      i += 3;
    } else if (c < 0xF5) {
      if (i + 3 >= n) return false;
      const uint8_t c1 = p[i + 1];
      if (!is_cont(c1) || !is_cont(p[i + 2]) || !is_cont(p[i + 3])) return false;
      if (c == 0xF0 && c1 < 0x90) return false;   // overlong
      if (c == 0xF4 && c1 >= 0x90) return false;  // above U+10FFFF
      i += 4;
    } else {
      return false;  // F5..FF never appear in UTF-8
    }
  }
  return true;
}

}  // namespace buzz::net::ws
