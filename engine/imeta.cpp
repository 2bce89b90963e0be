#include "engine/imeta.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>

#include "engine/hex.h"

namespace buzz::engine {
namespace {

constexpr double kDurationTolerance = 0.1;  // seconds between a tag's duration and the stored one (§8.2)

constexpr std::array<std::string_view, 13> kAllowed = {"url",   "m",        "x",       "size",  "dim",
                                                       "blurhash", "alt",   "thumb",   "fallback", "duration",
                                                       "bitrate",  "image", "filename"};

// A local media URL's last part: "{sha}.{ext}" or "{sha}.thumb.jpg".
struct MediaRef {
  std::string_view sha, ext;
  bool thumb = false;
};

bool is_ext(std::string_view s) {
  return !s.empty() && s.size() <= 8 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

std::optional<uint64_t> positive_integer(std::string_view s) {
  if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  uint64_t n = std::strtoull(std::string(s).c_str(), nullptr, 10);
  return n > 0 ? std::optional(n) : std::nullopt;
}

// type/subtype: both parts non-empty, at most 255 bytes, no whitespace or controls.
bool is_mime(std::string_view m) {
  size_t slash = m.find('/');
  if (m.size() > 255 || slash == 0 || slash == std::string_view::npos || slash + 1 == m.size()) return false;
  return std::none_of(m.begin(), m.end(), [](char c) { return uint8_t(c) <= 0x20 || c == 0x7f; });
}

std::string_view mapped_extension(std::string_view mime) {
  if (mime == "image/jpeg") return "jpg";
  if (mime == "image/png") return "png";
  if (mime == "image/gif") return "gif";
  if (mime == "image/webp") return "webp";
  if (mime == "video/mp4") return "mp4";
  return "";
}

}  // namespace

bool ImetaChecker::has_imeta(const Event& e) {
  return std::any_of(e.tags.begin(), e.tags.end(), [](const Tag& t) { return !t.empty() && t[0] == "imeta"; });
}

std::optional<std::string> ImetaChecker::check(const Event& e) const {
  for (const Tag& t : e.tags) {
    if (t.empty() || t[0] != "imeta") continue;
    if (auto refused = check_tag(t)) return refused;
  }
  return std::nullopt;
}

std::optional<std::string> ImetaChecker::check_tag(const Tag& tag) const {
  // A local URL: /media/… or <base>/…, no query, fragment or escapes.
  auto local = [&](std::string_view url) -> std::optional<MediaRef> {
    std::string_view rest;
    if (url.starts_with("/media/")) {
      rest = url.substr(7);
    } else if (!base_url_.empty() && url.starts_with(base_url_) && url.substr(base_url_.size()).starts_with("/")) {
      rest = url.substr(base_url_.size() + 1);
    } else {
      return std::nullopt;
    }
    if (rest.find_first_of("?#%/") != std::string_view::npos) return std::nullopt;
    size_t dot = rest.find('.');
    if (dot == std::string_view::npos || !is_lower_hex(rest.substr(0, dot), 32)) return std::nullopt;
    MediaRef ref{rest.substr(0, dot), rest.substr(dot + 1)};
    if (ref.ext == "thumb.jpg") {
      ref.thumb = true;
    } else if (!is_ext(ref.ext)) {
      return std::nullopt;
    }
    return ref;
  };

  std::map<std::string_view, std::string_view> fields;
  std::optional<MediaRef> url, thumb, image;
  std::optional<uint64_t> size;
  std::optional<double> duration;
  for (size_t i = 1; i < tag.size(); ++i) {
    std::string_view item = tag[i];
    size_t space = item.find(' ');
    std::string_view key = item.substr(0, space);
    std::string_view value = space == std::string_view::npos ? std::string_view() : item.substr(space + 1);
    if (std::find(kAllowed.begin(), kAllowed.end(), key) == kAllowed.end()) return "disallowed imeta key: " + std::string(key);
    if (key != "fallback" && !fields.emplace(key, value).second) return "duplicate imeta key: " + std::string(key);
    if (key == "url") {
      url = local(value);
      if (!url) return "imeta url must be a local /media/ path";
      if (url->thumb) return "imeta url must not be a thumbnail path; use thumb field";
    } else if (key == "m") {
      if (!is_mime(value)) return "imeta m must be a valid MIME type";
    } else if (key == "x") {
      if (!is_lower_hex(value, 32)) return "imeta x must be a 64-char lowercase hex SHA-256";
    } else if (key == "size") {
      size = positive_integer(value);
      if (!size) return "imeta size must be a positive integer";
    } else if (key == "thumb") {
      thumb = local(value);
      if (!thumb || !thumb->thumb) return "imeta thumb must be a local .thumb.jpg path";
    } else if (key == "duration") {
      char* end = nullptr;
      const std::string text(value);
      double d = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size()) return "imeta duration must be a valid float";
      if (!(d > 0) || !std::isfinite(d)) return "imeta duration must be a positive finite number";
      duration = d;
    } else if (key == "bitrate") {
      if (!positive_integer(value)) return "imeta bitrate must be a positive integer";
    } else if (key == "image") {
      image = local(value);
      if (!image) return "imeta image must be a local /media/ path";
      if (image->thumb) return "imeta image must reference a standalone poster frame, not a thumbnail";
      if (image->ext != "jpg" && image->ext != "png" && image->ext != "gif" && image->ext != "webp") {
        return "imeta image must reference an image file (jpg, png, gif, webp), not video";
      }
    } else if (key == "filename") {
      if (value.empty() || value.size() > 255) return "imeta filename must be 1–255 chars";
      if (std::any_of(value.begin(), value.end(),
                      [](char c) { return c == '/' || c == '\\' || uint8_t(c) < 0x20 || c == 0x7f; })) {
        return "imeta filename must not contain path separators or control characters";
      }
    }
  }
  if (!url || !fields.contains("m") || !fields.contains("x") || !size) return "imeta tag must include url, m, x, and size";
  const std::string_view m = fields["m"], x = fields["x"];
  if (m != "video/mp4") {
    for (std::string_view key : {"duration", "bitrate", "image"}) {
      if (fields.contains(key)) return "imeta " + std::string(key) + " is only valid for video/mp4, not " + std::string(m);
    }
  }
  if (url->sha != x) return "imeta url hash does not match x";
  if (std::string_view ext = mapped_extension(m); !ext.empty() && url->ext != ext) return "imeta url extension does not match m";
  if (thumb && thumb->sha != x) return "imeta thumb hash does not match x";

  // §8.2: the tag describes what is stored.
  const std::string sha(x);
  auto meta = store_.meta(sha);
  if (!meta) return "storage error checking blob " + sha + ": " + meta.error();
  if (!*meta) return "imeta references nonexistent blob: " + sha;
  const MediaMeta& stored = **meta;
  auto blob = store_.open_blob(sha + "." + stored.ext);
  if (!blob) return "storage error checking blob " + sha + ": " + blob.error();
  if (!*blob) return "imeta blob object missing in storage: " + sha;
  if (m != stored.mime_type) return "imeta m (" + std::string(m) + ") does not match stored MIME (" + stored.mime_type + ")";
  if (*size != stored.size) {
    return "imeta size (" + std::to_string(*size) + ") does not match stored size (" + std::to_string(stored.size) + ")";
  }
  if (duration && stored.duration_secs && std::fabs(*duration - *stored.duration_secs) > kDurationTolerance) {
    return "imeta duration (" + media_duration_json(*duration) + ") does not match stored duration (" +
           media_duration_json(*stored.duration_secs) + ")";
  }
  if (thumb) {
    auto t = store_.open_blob(sha + ".thumb.jpg");
    if (!t || !*t) return "imeta thumb references missing thumbnail: " + sha;
  }
  if (image) {
    const std::string poster(image->sha);
    auto pm = store_.meta(poster);
    if (!pm || !*pm) return "imeta image references nonexistent poster: " + poster;
    const MediaMeta& p = **pm;
    if (p.mime_type != "image/jpeg" && p.mime_type != "image/png" && p.mime_type != "image/gif" &&
        p.mime_type != "image/webp") {
      return "imeta image poster MIME must be image type, got " + p.mime_type;
    }
    if (image->ext != p.ext) {
      return "imeta image extension (" + std::string(image->ext) + ") does not match stored extension (" + p.ext + ")";
    }
    auto pb = store_.open_blob(poster + "." + p.ext);
    if (!pb || !*pb) return "imeta image references missing poster frame: " + poster;
  }
  return std::nullopt;
}

}  // namespace buzz::engine
