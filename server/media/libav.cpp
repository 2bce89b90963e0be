// Loading libavformat on first use; see libav.h.
#include "server/media/libav.h"

#include <dlfcn.h>

#include <mutex>

namespace buzz::server {
namespace {

#define BUZZ_STRINGIFY2(x) #x
#define BUZZ_STRINGIFY(x) BUZZ_STRINGIFY2(x)
// The SONAME of the version the headers describe, e.g. libavformat.so.59.
constexpr const char* kLibavformat = "libavformat.so." BUZZ_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR);

struct Loaded {
  Libav fns{};
  std::string error;  // empty when loaded
};

Loaded load() {
  Loaded out;
  // Its own libavutil comes with it; dlsym on the handle searches both.
  void* handle = dlopen(kLibavformat, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    out.error = std::string("cannot load ") + kLibavformat + ": " + dlerror();
    return out;
  }
  bool whole = true;
  auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    if (!fn && whole) {
      whole = false;
      out.error = std::string(kLibavformat) + " has no " + name;
    }
  };
  Libav& f = out.fns;
  resolve(f.avformat_alloc_context, "avformat_alloc_context");
  resolve(f.avformat_open_input, "avformat_open_input");
  resolve(f.avformat_close_input, "avformat_close_input");
  resolve(f.av_find_input_format, "av_find_input_format");
  resolve(f.avio_alloc_context, "avio_alloc_context");
  resolve(f.avio_context_free, "avio_context_free");
  resolve(f.av_malloc, "av_malloc");
  resolve(f.av_free, "av_free");
  resolve(f.av_freep, "av_freep");
  resolve(f.av_log_set_level, "av_log_set_level");
  resolve(f.av_rescale, "av_rescale");
  if (whole) f.av_log_set_level(AV_LOG_QUIET);
  return out;  // the handle stays open for the process's life
}

}  // namespace

const Libav* libav(std::string* error) {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) {
    if (error) *error = loaded.error;
    return nullptr;
  }
  return &loaded.fns;
}

}  // namespace buzz::server
