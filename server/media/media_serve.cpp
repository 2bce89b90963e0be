// GET / HEAD /media/{sha256}[.ext] (Blossom BUD-01, docs/reference/media.md §6): blob
// retrieval, unguessable by hash. The sidecar is the gate: without it a blob
// does not exist, and its MIME type, never the file, decides Content-Type.
// A sidecar that names a channel (a huddle recording's track) makes the blob
// that channel's: served only to a proven reader of it (§6.5), the sidecar
// read that serving needs anyway being the only lookup.
// Single byte ranges are served in chunks of at most 16 MiB.
// Runs on the loop thread; the bytes served are read into memory first.
#include <algorithm>

#include "engine/clock.h"
#include "engine/hex.h"
#include "server/access/blossom_auth.h"
#include "server/access/read_access.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/media/byte_range.h"
#include "server/media/media.h"

namespace buzz::server {
namespace {

// One year, immutable: a blob's name is its content's hash.
constexpr std::string_view kCacheControl = "public, max-age=31536000, immutable";
// A channel's blob: no shared cache keeps it, and no cache serves it again
// without asking, so a reader who lost the right is refused (§6.5).
constexpr std::string_view kPrivateCacheControl = "private, no-store";

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
  const engine::MediaMeta& m = **meta;
  std::string key = std::string(parsed->sha);
  std::string content_type = "image/jpeg";
  if (parsed->thumb) {
    key += ".thumb.jpg";
  } else {
    if ((!parsed->ext.empty() && parsed->ext != m.ext) || !is_extension(m.ext)) return not_found();
    key += "." + m.ext;
    content_type = m.mime_type;
  }
  // A channel's blob (and its thumbnail): the reader's right before any byte or size.
  if (!m.channel.empty()) {
    if (auto refused = authorize_read(req, parsed->sha, m.channel)) return std::move(*refused);
  }
  const std::string_view cache_control = m.channel.empty() ? kCacheControl : kPrivateCacheControl;
  auto blob = blobs_.open_blob(key);
  if (!blob) return internal_error(blob.error());
  if (!*blob) return not_found();
  const engine::BlobFile& file = **blob;
  const uint64_t total = file.size();

  net::HttpResponse r{200, content_type, "", {}, {}};
  if (req.method == "HEAD") {
    r.content_length = total;
    r.headers = {{"Accept-Ranges", "bytes"}, {"Cache-Control", std::string(cache_control)}};
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
                                     {"Cache-Control", std::string(cache_control)},
                                     {"Content-Security-Policy", "default-src 'none'"},
                                     {"X-Content-Type-Options", "nosniff"},
                                     {"Accept-Ranges", "bytes"}});
  return r;
}

// A reader proves a key as a REST caller does (server/access/key_proof.h): an
// API token with files:read, or a NIP-98 signature of this very request
// (once); or by a Blossom `get` naming the blob (until it expires: a player's
// range requests). Then the key must read the channel by the rule REQ applies
// and stand on the relay (not banned; a member or vouched for), at this
// moment. Any failed proof is 401; a key without that right gets the missing
// blob's 404, so whether the blob exists is told only to its readers and to a
// caller already holding its hash.
std::optional<net::HttpResponse> Media::authorize_read(const net::HttpRequest& req, std::string_view sha,
                                                       std::string_view channel) {
  auto unproven = [&](const std::string& reason) {
    log_info("media read refused", {{"reason", reason}, {"peer", req.peer}});
    return api_error(401, kAuthFailed);
  };
  const uint64_t now = engine::unix_now();
  // The URL signed is the relay's or the media base's (they differ when
  // BUZZ_MEDIA_BASE_URL names another host).
  const std::string_view media_host = std::string_view(options_.base_url).substr(0, options_.base_url.size() - 6);
  auto proven = prover_.prove(req, {.url = options_.relay_http_url, .other_url = media_host}, now);
  if (const ProofError* e = std::get_if<ProofError>(&proven)) {
    if (e->failure == ProofFailure::kTokenStore) return internal_error(e->detail);
    if (e->failure != ProofFailure::kSignature) return unproven(e->detail);
    auto blossom = verify_blossom_get(req.header("authorization"), sha, options_.authority, now);
    if (!blossom) return unproven(e->detail + "; blossom get: " + blossom.error());
    proven = KeyProof{.pubkey = *blossom, .event_kind = kind::kBlossomAuth};
  }
  const KeyProof& reader = std::get<KeyProof>(proven);
  if (!reader.grant.has(Scope::kFilesRead) || !may_read_channel(channel, team_, reader.grant, reader.pubkey) ||
      prover_.standing(req, reader, now) != KeyProver::Standing::kAdmitted) {
    log_info("media read refused", {{"reason", "may not read channel " + std::string(channel)},
                                    {"pubkey", engine::to_hex(reader.pubkey)}, {"peer", req.peer}});
    return not_found();
  }
  // Only a reader takes a place in the rate and the replay cache (as REST: docs/access.md).
  if (auto refused = throttle_.admit_api_call(reader.pubkey)) return refused;
  if (reader.signed_request) {
    Nip98ReplayCache::Use use = prover_.first_use(*reader.signed_request, now);
    if (use == Nip98ReplayCache::Use::kReplay) return unproven("NIP-98 replay");
    if (use == Nip98ReplayCache::Use::kFull) return api_error(503, "NIP-98: too many signed requests in flight, retry");
  }
  return std::nullopt;
}

}  // namespace buzz::server
