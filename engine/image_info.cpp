// Header-only image dimensions; see image_info.h. Every read is bounds-checked
// against the buffer: the bytes come straight from an untrusted upload.
#include "engine/image_info.h"

namespace buzz::engine {
namespace {

uint32_t u8(std::string_view b, size_t at) { return static_cast<unsigned char>(b[at]); }
uint32_t be16(std::string_view b, size_t at) { return u8(b, at) << 8 | u8(b, at + 1); }
uint32_t be32(std::string_view b, size_t at) { return be16(b, at) << 16 | be16(b, at + 2); }
uint32_t le16(std::string_view b, size_t at) { return u8(b, at) | u8(b, at + 1) << 8; }
uint32_t le24(std::string_view b, size_t at) { return le16(b, at) | u8(b, at + 2) << 16; }
uint32_t le32(std::string_view b, size_t at) { return le16(b, at) | le16(b, at + 2) << 16; }

std::optional<ImageSize> sized(uint32_t width, uint32_t height) {
  if (width == 0 || height == 0) return std::nullopt;
  return ImageSize{width, height};
}

// Signature, then the IHDR chunk first of all: length 13, "IHDR", width, height.
std::optional<ImageSize> png_size(std::string_view b) {
  if (b.size() < 24 || b.substr(0, 8) != "\x89PNG\r\n\x1a\n" || be32(b, 8) != 13 || b.substr(12, 4) != "IHDR") {
    return std::nullopt;
  }
  return sized(be32(b, 16), be32(b, 20));
}

// "GIF87a" / "GIF89a", then the logical screen's width and height.
std::optional<ImageSize> gif_size(std::string_view b) {
  if (b.size() < 10 || (b.substr(0, 6) != "GIF87a" && b.substr(0, 6) != "GIF89a")) return std::nullopt;
  return sized(le16(b, 6), le16(b, 8));
}

// Walks the marker segments to the first start-of-frame (SOF0–SOF15, which
// excludes C4 DHT, C8 JPG and CC DAC): length, precision, height, width.
std::optional<ImageSize> jpeg_size(std::string_view b) {
  if (b.size() < 4 || u8(b, 0) != 0xFF || u8(b, 1) != 0xD8) return std::nullopt;
  size_t at = 2;
  while (at + 4 <= b.size()) {
    if (u8(b, at) != 0xFF) return std::nullopt;
    uint32_t marker = u8(b, at + 1);
    if (marker == 0xFF) {  // fill byte before a marker
      ++at;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // standalone: no length
      at += 2;
      continue;
    }
    if (marker == 0xD9 || marker == 0xDA) return std::nullopt;  // image end or scan data before a frame
    uint32_t length = be16(b, at + 2);
    if (length < 2) return std::nullopt;
    bool frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame) {
      if (length < 7 || at + 9 > b.size()) return std::nullopt;
      return sized(be16(b, at + 7), be16(b, at + 5));
    }
    at += 2 + length;
  }
  return std::nullopt;
}

// "RIFF" size "WEBP", then the first chunk: VP8 (lossy), VP8L (lossless) or
// VP8X (extended, with the canvas size).
std::optional<ImageSize> webp_size(std::string_view b) {
  if (b.size() < 30 || b.substr(0, 4) != "RIFF" || b.substr(8, 4) != "WEBP") return std::nullopt;
  std::string_view chunk = b.substr(12, 4);
  if (chunk == "VP8 ") {
    // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height.
    if (u8(b, 23) != 0x9D || u8(b, 24) != 0x01 || u8(b, 25) != 0x2A) return std::nullopt;
    return sized(le16(b, 26) & 0x3FFF, le16(b, 28) & 0x3FFF);
  }
  if (chunk == "VP8L") {
    // Signature 0x2F, then width-1 and height-1 as two 14-bit fields.
    if (u8(b, 20) != 0x2F) return std::nullopt;
    uint32_t bits = le32(b, 21);
    return sized((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1);
  }
  if (chunk == "VP8X") {
    // Flags (1 byte), reserved (3), then canvas width-1 and height-1, 24 bits each.
    return sized(le24(b, 24) + 1, le24(b, 27) + 1);
  }
  return std::nullopt;
}

}  // namespace

std::optional<ImageSize> read_image_size(std::string_view mime, std::string_view bytes) {
  if (mime == "image/png") return png_size(bytes);
  if (mime == "image/gif") return gif_size(bytes);
  if (mime == "image/jpeg") return jpeg_size(bytes);
  if (mime == "image/webp") return webp_size(bytes);
  return std::nullopt;
}

}  // namespace buzz::engine
