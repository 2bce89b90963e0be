// Test image bytes; see test_images.h.
#include "tests/test_images.h"

#include <gif_lib.h>
#include <png.h>
#include <turbojpeg.h>
#include <webp/encode.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "engine/canonical.h"
#include "engine/hex.h"

namespace buzz::test {
namespace {

void be32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(char(v >> shift));
}
void le16(std::string& out, uint32_t v) {
  out.push_back(char(v));
  out.push_back(char(v >> 8));
}
void le24(std::string& out, uint32_t v) {
  le16(out, v);
  out.push_back(char(v >> 16));
}

// Length, type, data, CRC-32 of type and data.
void png_chunk(std::string& out, const std::string& type, const std::string& data) {
  be32(out, uint32_t(data.size()));
  std::string body = type + data;
  out += body;
  be32(out, uint32_t(crc32(0, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()))));
}

std::string png_start(uint32_t width, uint32_t height) {
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  be32(ihdr, width);
  be32(ihdr, height);
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, deflate, no filter method, no interlace
  png_chunk(png, "IHDR", ihdr);
  return png;
}

}  // namespace

std::string make_png(uint32_t width, uint32_t height) {
  std::string raw;
  for (uint32_t y = 0; y < height; ++y) {
    raw.push_back('\0');  // filter type None
    for (uint32_t x = 0; x < width; ++x) {
      raw.push_back(char(x * 255 / std::max<uint32_t>(width, 2)));
      raw.push_back(char(y * 255 / std::max<uint32_t>(height, 2)));
      raw.push_back(char(0x80));
    }
  }
  uLongf size = compressBound(uLong(raw.size()));
  std::string idat(size, '\0');
  compress(reinterpret_cast<Bytef*>(idat.data()), &size, reinterpret_cast<const Bytef*>(raw.data()), uLong(raw.size()));
  idat.resize(size);
  std::string png = png_start(width, height);
  png_chunk(png, "IDAT", idat);
  png_chunk(png, "IEND", "");
  return png;
}

std::string png_header_only(uint32_t width, uint32_t height) { return png_start(width, height); }

std::string tiny_gif() {
  return std::string(
      "GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,"
      "\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02\x44\x01\x00;",
      43);
}

std::string jpeg_header(uint32_t width, uint32_t height) {
  std::string j("\xFF\xD8", 2);
  j += std::string("\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 18);  // APP0
  j += std::string("\xFF\xC0\x00\x11\x08", 5);  // SOF0, length 17, 8-bit samples
  j.push_back(char(height >> 8));
  j.push_back(char(height));
  j.push_back(char(width >> 8));
  j.push_back(char(width));
  j += std::string("\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01", 10);  // three components
  j += std::string("\xFF\xD9", 2);
  return j;
}

std::string webp_header(const std::string& chunk, uint32_t width, uint32_t height) {
  std::string data;
  if (chunk == "VP8 ") {
    data = std::string("\x30\x01\x00\x9D\x01\x2A", 6);  // frame tag, start code
    le16(data, width);
    le16(data, height);
  } else if (chunk == "VP8L") {
    data = "\x2F";
    uint32_t bits = (width - 1) | (height - 1) << 14;
    le16(data, bits & 0xFFFF);
    le16(data, bits >> 16);
  } else {
    data = std::string(4, '\0');  // flags, reserved
    le24(data, width - 1);
    le24(data, height - 1);
  }
  data.resize(std::max<size_t>(data.size(), 10), '\0');
  std::string body = "WEBP" + chunk;
  body.push_back(char(data.size()));
  body += std::string(3, '\0');
  body += data;
  std::string riff = "RIFF";
  riff.push_back(char(body.size()));
  riff += std::string(3, '\0');
  return riff + body;
}

std::string sha256_hex(const std::string& bytes) {
  uint8_t digest[32];
  engine::sha256(bytes.data(), bytes.size(), digest);
  return engine::to_hex(digest, sizeof digest);
}

namespace {

// RGBA of the gradient make_png draws, with the left half transparent when asked.
std::vector<uint8_t> rgba_gradient(uint32_t width, uint32_t height, bool transparent_left) {
  std::vector<uint8_t> px(size_t(width) * height * 4);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      uint8_t* p = &px[(size_t(y) * width + x) * 4];
      p[0] = uint8_t(x * 255 / std::max<uint32_t>(width, 2));
      p[1] = uint8_t(y * 255 / std::max<uint32_t>(height, 2));
      p[2] = 0x80;
      p[3] = transparent_left && x < width / 2 ? 0 : 255;
    }
  }
  return px;
}

}  // namespace

std::string make_jpeg(uint32_t width, uint32_t height) {
  std::vector<uint8_t> px = rgba_gradient(width, height, false);
  tjhandle tj = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  tjCompress2(tj, px.data(), int(width), 0, int(height), TJPF_RGBA, &jpeg, &size, TJSAMP_420, 90, 0);
  std::string out(reinterpret_cast<const char*>(jpeg), size);
  tjFree(jpeg);
  tjDestroy(tj);
  return out;
}

std::string make_webp(uint32_t width, uint32_t height, bool transparent_left) {
  std::vector<uint8_t> px = rgba_gradient(width, height, transparent_left);
  uint8_t* out = nullptr;
  size_t size = WebPEncodeLosslessRGBA(px.data(), int(width), int(height), int(width * 4), &out);
  std::string webp(reinterpret_cast<const char*>(out), size);
  WebPFree(out);
  return webp;
}

std::string make_rgba_png(uint32_t width, uint32_t height, bool transparent_left) {
  std::vector<uint8_t> px = rgba_gradient(width, height, transparent_left);
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = width;
  image.height = height;
  image.format = PNG_FORMAT_RGBA;
  png_alloc_size_t size = 0;
  png_image_write_get_memory_size(image, size, 0, px.data(), 0, nullptr);
  std::string png(size, '\0');
  png_image_write_to_memory(&image, png.data(), &size, 0, px.data(), 0, nullptr);
  png.resize(size);
  return png;
}

namespace {

int write_gif(GifFileType* gif, const GifByteType* bytes, int n) {
  static_cast<std::string*>(gif->UserData)->append(reinterpret_cast<const char*>(bytes), size_t(n));
  return n;
}

}  // namespace

std::string make_animated_gif(uint32_t width, uint32_t height) {
  std::string out;
  int error = 0;
  GifFileType* gif = EGifOpen(&out, write_gif, &error);
  GifColorType colors[4] = {{0, 0, 0}, {255, 0, 0}, {0, 0, 255}, {0, 255, 0}};
  ColorMapObject* map = GifMakeMapObject(4, colors);
  EGifPutScreenDesc(gif, int(width), int(height), 2, 0, map);
  for (int frame = 0; frame < 2; ++frame) {
    // Graphics control: colour 0 is transparent.
    GifByteType control[4] = {0x01, 10, 0, 0};
    EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, control);
    EGifPutImageDesc(gif, 0, 0, int(width), int(height), false, nullptr);
    std::vector<GifPixelType> row(width);
    for (uint32_t y = 0; y < height; ++y) {
      for (uint32_t x = 0; x < width; ++x) {
        const bool border = x == 0 || y == 0 || x + 1 == width || y + 1 == height;
        row[x] = border ? 0 : GifPixelType(frame == 0 ? 1 : 2);
      }
      EGifPutLine(gif, row.data(), int(width));
    }
  }
  EGifCloseFile(gif, &error);
  GifFreeMapObject(map);
  return out;
}

}  // namespace buzz::test
