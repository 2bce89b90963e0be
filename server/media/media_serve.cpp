// GET / HEAD /media/{sha256}[.ext] (Blossom BUD-01, docs/reference/media.md §6): public blob
// retrieval, unguessable by hash. The sidecar is the gate: without it a blob
// does not exist, and its MIME type, never the file, decides Content-Type.
// Single byte ranges are served in chunks of at most 16 MiB.
// Runs on the loop thread; the bytes served are read into memory first.
#include <algorithm>

#include "engine/hex.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/media/byte_range.h"
#include "server/media/media.h"

namespace buzz::server {
namespace {

// One year, immutable: a blob's name is its content's hash.
constexpr std::string_view kCacheControl = "public, max-age=31536000, immutable";

// 1–8 characters of [a-z0-9].
bool is_extension(std::string_view s) {
  return !s.empty() && s.size() <= 8 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

// The last path segment: "{sha}", "{sha}.{ext}" or "{sha}.thumb.jpg" (§6.1).
struct MediaName {
  std::string_view sha;
  std::string_view ext;  // "" for the bare form
  bool thumb = false;
};

std::optional<MediaName> parse_media_name(std::string_view name) {
  size_t dot = name.find('.');
  MediaName n{name.substr(0, dot), {}, false};
  if (!engine::is_lower_hex(n.sha, 32)) return std::nullopt;
  if (dot == std::string_view::npos) return n;
  std::string_view rest = name.substr(dot + 1);
  if (rest == "thumb.jpg") {
    n.thumb = true;
    return n;
  }
  if (!is_extension(rest)) return std::nullopt;
  n.ext = rest;
  return n;
}

net::HttpResponse not_found() { return api_error(404, "not found"); }

net::HttpResponse internal_error(const std::string& why) {
  log_error("media read failed", {{"error", why}});
  return api_error(500, "internal error");
}

}  // namespace

net::HttpResponse Media::serve(const net::HttpRequest& req, std::string_view name) {
  std::optional<MediaName> parsed = parse_media_name(name);
  if (!parsed) return not_found();
  auto meta = blobs_.meta(parsed->sha);
  if (!meta) return internal_error(meta.error());
  if (!*meta) return not_found();
  std::string key = std::string(parsed->sha);
  std::string content_type = "image/jpeg";
  if (parsed->thumb) {
    key += ".thumb.jpg";
  } else {
    const engine::MediaMeta& m = **meta;
    if ((!parsed->ext.empty() && parsed->ext != m.ext) || !is_extension(m.ext)) return not_found();
    key += "." + m.ext;
    content_type = m.mime_type;
  }
  auto blob = blobs_.open_blob(key);
  if (!blob) return internal_error(blob.error());
  if (!*blob) return not_found();
  const engine::BlobFile& file = **blob;
  const uint64_t total = file.size();

  net::HttpResponse r{200, content_type, "", {}, {}};
  if (req.method == "HEAD") {
    r.content_length = total;
    r.headers = {{"Accept-Ranges", "bytes"}, {"Cache-Control", std::string(kCacheControl)}};
    return r;
  }
  ByteRange range = resolve_byte_range(req.header("range"), total);
  if (range.kind == ByteRange::Kind::kUnsatisfiable) {
    net::HttpResponse refused{416, "", "", {{"Content-Range", "bytes */" + std::to_string(total)}}, {}};
    return refused;
  }
  uint64_t first = 0, length = total;
  if (range.kind == ByteRange::Kind::kPartial) {
    first = range.first;
    length = range.last - range.first + 1;
    r.status = 206;
    r.headers.emplace_back("Content-Range", "bytes " + std::to_string(range.first) + "-" + std::to_string(range.last) +
                                                "/" + std::to_string(total));
  }
  auto bytes = file.read(first, size_t(length));
  if (!bytes) return internal_error(bytes.error());
  if (bytes->size() != length) return internal_error("short read of " + key);
  r.body = std::move(*bytes);
  bool inline_type = content_type.starts_with("image/") || content_type.starts_with("video/");
  r.headers.insert(r.headers.end(), {{"Content-Disposition", inline_type ? "inline" : "attachment"},
                                     {"Cache-Control", std::string(kCacheControl)},
                                     {"Content-Security-Policy", "default-src 'none'"},
                                     {"X-Content-Type-Options", "nosniff"},
                                     {"Accept-Ranges", "bytes"}});
  return r;
}

}  // namespace buzz::server
