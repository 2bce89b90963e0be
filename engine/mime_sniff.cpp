// libmagic MIME sniffing; see mime_sniff.h.
#include "engine/mime_sniff.h"

#include <magic.h>

#include <algorithm>
#include <memory>

namespace buzz::engine {
namespace {

struct CookieCloser {
  void operator()(magic_t cookie) const { magic_close(cookie); }
};
using Cookie = std::unique_ptr<std::remove_pointer_t<magic_t>, CookieCloser>;

// This thread's cookie, opened on first use; null with *why set if it cannot be.
magic_t thread_cookie(std::string* why) {
  thread_local Cookie cookie;
  thread_local std::string failure;
  if (!cookie && failure.empty()) {
    Cookie c(magic_open(MAGIC_MIME_TYPE));
    if (!c) {
      failure = "libmagic: magic_open failed";
    } else if (magic_load(c.get(), nullptr) != 0) {
      failure = std::string("libmagic: cannot load the magic database: ") + magic_error(c.get());
    } else {
      cookie = std::move(c);
    }
  }
  *why = failure;
  return cookie.get();
}

}  // namespace

Result<std::optional<std::string>> sniff_mime(std::string_view bytes) {
  std::string why;
  magic_t cookie = thread_cookie(&why);
  if (!cookie) return Error{why};
  const char* type = magic_buffer(cookie, bytes.data(), std::min(bytes.size(), kSniffBytes));
  if (!type) return Error{std::string("libmagic: ") + (magic_error(cookie) ? magic_error(cookie) : "no answer")};
  std::string mime(type);
  if (mime == "application/octet-stream" || mime == "application/x-empty" || mime == "inode/x-empty" ||
      mime == "text/plain") {
    return std::optional<std::string>();
  }
  return std::optional<std::string>(std::move(mime));
}

}  // namespace buzz::engine
