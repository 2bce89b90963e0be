#include "server/media/image_pixels.h"

#include <gif_lib.h>
#include <png.h>
#include <turbojpeg.h>
#include <webp/decode.h>
#include <webp/demux.h>

#include <cstring>
#include <memory>

namespace buzz::server {
namespace {

using engine::Error;
using engine::Result;

bool too_many(uint64_t w, uint64_t h, uint64_t max_pixels) { return w == 0 || h == 0 || w * h > max_pixels; }

Pixels blank(uint32_t w, uint32_t h) { return Pixels{w, h, std::vector<uint8_t>(size_t(w) * h * 4, 0)}; }

Result<Pixels> decode_jpeg(std::string_view bytes, uint64_t max_pixels) {
  std::unique_ptr<void, int (*)(tjhandle)> tj(tjInitDecompress(), tjDestroy);
  if (!tj) return Error{"jpeg: no decoder"};
  auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  int w = 0, h = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(tj.get(), data, bytes.size(), &w, &h, &subsampling, &colorspace) != 0) {
    return Error{std::string("jpeg: ") + tjGetErrorStr2(tj.get())};
  }
  if (too_many(uint64_t(w), uint64_t(h), max_pixels)) return Error{"jpeg: too many pixels"};
  Pixels p = blank(uint32_t(w), uint32_t(h));
  // Warnings (a truncated scan, corrupt data) fail too: no partial images.
  if (tjDecompress2(tj.get(), data, bytes.size(), p.rgba.data(), w, 0, h, TJPF_RGBA, TJFLAG_STOPONWARNING) != 0) {
    return Error{std::string("jpeg: ") + tjGetErrorStr2(tj.get())};
  }
  return p;
}

Result<Pixels> decode_png(std::string_view bytes, uint64_t max_pixels) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size())) {
    return Error{std::string("png: ") + image.message};
  }
  std::unique_ptr<png_image, void (*)(png_image*)> cleanup(&image, png_image_free);
  if (too_many(image.width, image.height, max_pixels)) return Error{"png: too many pixels"};
  image.format = PNG_FORMAT_RGBA;
  Pixels p = blank(image.width, image.height);
  if (!png_image_finish_read(&image, nullptr, p.rgba.data(), 0, nullptr)) return Error{std::string("png: ") + image.message};
  return p;
}

Result<Pixels> decode_webp(std::string_view bytes, uint64_t max_pixels) {
  auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data, bytes.size(), &features) != VP8_STATUS_OK) return Error{"webp: bad header"};
  if (!features.has_animation) {
    if (too_many(uint64_t(features.width), uint64_t(features.height), max_pixels)) return Error{"webp: too many pixels"};
    Pixels p = blank(uint32_t(features.width), uint32_t(features.height));
    const int stride = features.width * 4;
    if (!WebPDecodeRGBAInto(data, bytes.size(), p.rgba.data(), p.rgba.size(), stride)) return Error{"webp: cannot decode"};
    return p;
  }
  // An animation: its first frame, on its canvas.
  WebPAnimDecoderOptions options;
  if (!WebPAnimDecoderOptionsInit(&options)) return Error{"webp: no decoder"};
  options.color_mode = MODE_RGBA;
  options.use_threads = 0;
  WebPData webp{data, bytes.size()};
  std::unique_ptr<WebPAnimDecoder, void (*)(WebPAnimDecoder*)> dec(WebPAnimDecoderNew(&webp, &options),
                                                                   WebPAnimDecoderDelete);
  WebPAnimInfo info;
  if (!dec || !WebPAnimDecoderGetInfo(dec.get(), &info)) return Error{"webp: bad animation"};
  if (too_many(info.canvas_width, info.canvas_height, max_pixels)) return Error{"webp: too many pixels"};
  uint8_t* frame = nullptr;
  int timestamp = 0;
  if (!WebPAnimDecoderGetNext(dec.get(), &frame, &timestamp)) return Error{"webp: cannot decode the first frame"};
  Pixels p = blank(info.canvas_width, info.canvas_height);
  std::memcpy(p.rgba.data(), frame, p.rgba.size());
  return p;
}

// giflib reads through a callback: this one serves a byte range.
struct GifSource {
  std::string_view bytes;
  size_t at = 0;
};

int read_gif(GifFileType* gif, GifByteType* out, int n) {
  auto* src = static_cast<GifSource*>(gif->UserData);
  size_t take = std::min(size_t(n), src->bytes.size() - src->at);
  std::memcpy(out, src->bytes.data() + src->at, take);
  src->at += take;
  return int(take);
}

Result<Pixels> decode_gif(std::string_view bytes, uint64_t max_pixels) {
  GifSource source{bytes};
  int error = 0;
  std::unique_ptr<GifFileType, void (*)(GifFileType*)> gif(DGifOpen(&source, read_gif, &error), [](GifFileType* g) {
    int ignored;
    DGifCloseFile(g, &ignored);
  });
  if (!gif) return Error{std::string("gif: ") + GifErrorString(error)};
  if (too_many(uint64_t(gif->SWidth), uint64_t(gif->SHeight), max_pixels)) return Error{"gif: too many pixels"};
  Pixels p = blank(uint32_t(gif->SWidth), uint32_t(gif->SHeight));  // transparent where the frame does not paint
  int transparent = -1;
  for (;;) {
    GifRecordType type;
    if (DGifGetRecordType(gif.get(), &type) == GIF_ERROR) return Error{"gif: truncated"};
    if (type == TERMINATE_RECORD_TYPE) return Error{"gif: no image"};
    if (type == EXTENSION_RECORD_TYPE) {
      int code = 0;
      GifByteType* ext = nullptr;
      if (DGifGetExtension(gif.get(), &code, &ext) == GIF_ERROR) return Error{"gif: bad extension"};
      if (code == GRAPHICS_EXT_FUNC_CODE && ext && ext[0] >= 4 && (ext[1] & 1)) transparent = ext[4];
      while (ext) {
        if (DGifGetExtensionNext(gif.get(), &ext) == GIF_ERROR) return Error{"gif: bad extension"};
      }
      continue;
    }
    if (type != IMAGE_DESC_RECORD_TYPE) continue;
    if (DGifGetImageDesc(gif.get()) == GIF_ERROR) return Error{"gif: bad image descriptor"};
    const GifImageDesc& d = gif->Image;
    const ColorMapObject* colors = d.ColorMap ? d.ColorMap : gif->SColorMap;
    if (!colors || d.Width <= 0 || d.Height <= 0 || too_many(uint64_t(d.Width), uint64_t(d.Height), max_pixels)) {
      return Error{"gif: bad first frame"};
    }
    std::vector<GifPixelType> row(size_t(d.Width));
    // Interlaced frames send rows in four passes.
    static constexpr int kStart[] = {0, 4, 2, 1}, kStep[] = {8, 8, 4, 2};
    const int passes = d.Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; ++pass) {
      for (int y = d.Interlace ? kStart[pass] : 0; y < d.Height; y += d.Interlace ? kStep[pass] : 1) {
        if (DGifGetLine(gif.get(), row.data(), d.Width) == GIF_ERROR) return Error{"gif: truncated frame"};
        const int64_t sy = int64_t(d.Top) + y;
        if (sy < 0 || sy >= gif->SHeight) continue;
        for (int x = 0; x < d.Width; ++x) {
          const int64_t sx = int64_t(d.Left) + x;
          if (sx < 0 || sx >= gif->SWidth || row[size_t(x)] == transparent || row[size_t(x)] >= colors->ColorCount) continue;
          const GifColorType& c = colors->Colors[row[size_t(x)]];
          uint8_t* px = &p.rgba[(size_t(sy) * p.width + size_t(sx)) * 4];
          px[0] = c.Red, px[1] = c.Green, px[2] = c.Blue, px[3] = 255;
        }
      }
    }
    return p;
  }
}

}  // namespace

Result<Pixels> decode_image(std::string_view mime, std::string_view bytes, uint64_t max_pixels) {
  if (mime == "image/jpeg") return decode_jpeg(bytes, max_pixels);
  if (mime == "image/png") return decode_png(bytes, max_pixels);
  if (mime == "image/webp") return decode_webp(bytes, max_pixels);
  if (mime == "image/gif") return decode_gif(bytes, max_pixels);
  return Error{"not a previewable image type: " + std::string(mime)};
}

}  // namespace buzz::server
