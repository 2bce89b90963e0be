// Image bytes for the media tests (unit and end-to-end): a real PNG encoded
// here (zlib for IDAT and the chunk CRCs), a real 1×1 GIF, headers that are
// only what a header reader looks at (JPEG frame, WebP chunks, a PNG whose
// IHDR claims any size), and whole files made by the codec libraries.
#pragma once

#include <cstdint>
#include <string>

namespace buzz::test {

// A complete, decodable RGB PNG of width × height (a colour gradient).
std::string make_png(uint32_t width, uint32_t height);
// Signature and IHDR only: a PNG that claims width × height and has no pixels.
std::string png_header_only(uint32_t width, uint32_t height);
// The classic 43-byte transparent 1×1 GIF89a.
std::string tiny_gif();
// SOI, a JFIF APP0 segment and a baseline SOF0 frame header of width × height.
std::string jpeg_header(uint32_t width, uint32_t height);
// A RIFF/WEBP file whose first chunk is "VP8 ", "VP8L" or "VP8X" for width × height.
std::string webp_header(const std::string& chunk, uint32_t width, uint32_t height);
// Complete files encoded by Debian's libraries, for the decoders: a JPEG
// (libjpeg-turbo), a lossless WebP with alpha (libwebp), a PNG with an alpha
// channel (libpng), all of width × height; `transparent_left` makes the left
// half fully transparent. And a two-frame animated GIF (giflib) whose first
// frame is red on a transparent border.
std::string make_jpeg(uint32_t width, uint32_t height);
std::string make_webp(uint32_t width, uint32_t height, bool transparent_left = false);
std::string make_rgba_png(uint32_t width, uint32_t height, bool transparent_left);
std::string make_animated_gif(uint32_t width, uint32_t height);
// The lowercase hex SHA-256 of bytes.
std::string sha256_hex(const std::string& bytes);

}  // namespace buzz::test
