// PUT /media/upload (Blossom BUD-02, docs/reference/media.md §2–§5), typed by the bytes:
// JPEG, PNG, GIF and WebP images, bounded in bytes and pixels and stored with
// a 320 px JPEG thumbnail and a blurhash; any other file (PDF, archives,
// audio, …) as a download, except active content and executables. Stored
// content-addressed and answered with a blob descriptor.
//
// Authorization runs twice: on the head, before the body is buffered
// (on_request_head → admit_upload, with the hour-long window), and again with
// the body's hash and the image window (the hour again for a video).
//
// Video (§3.3): a video/* Content-Type has the body streamed to a file under
// the store's tmp/ as it arrives (net/body_spool.h), hashed on the way; the
// file is sniffed, its MP4 header inspected (video_info.h) and then renamed
// into place, so a 500 MB upload is never in memory. Every authentication failure answers
// the same 401; the real reason is only logged.
//
// Ordering: the blob is stored, then its thumbnail, then its sidecar (the commit point), then the
// audit entry is queued and the descriptor sent. A failure after the blob
// leaves an orphan nobody can see, never a visible half-upload.
// Runs on the media worker (media.h), never on a loop: the hash, the decode
// and the fsyncs take as long as they take without holding up connections.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/audit_entry.h"
#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/image_info.h"
#include "engine/json_text.h"
#include "engine/kind_numbers.h"
#include "engine/mime_sniff.h"
#include "server/access/blossom_auth.h"
#include "server/common/api_error.h"
#include "server/common/log.h"
#include "server/media/blurhash.h"
#include "server/media/file_types.h"
#include "server/media/image_pixels.h"
#include "server/media/media.h"
#include "server/media/thumbnail.h"
#include "server/media/video_info.h"

namespace buzz::server {
namespace {

constexpr uint64_t kMaxImagePixels = 25'000'000;
constexpr uint64_t kVideoSniffBytes = 4096;        // §3.3 step 2
constexpr int kVideoUploadTimeoutSecs = 600;       // §2.4: a video upload's whole request
// Any other streamed body: its minimum rate is the real bound; this only ends
// one that keeps the rate for an hour (100 MiB at 30 KiB/s).
constexpr int kFileUploadTimeoutSecs = 3600;

// §3.1: a video/* Content-Type takes the video path (its limit, its checks).
bool video_upload(const net::HttpRequest& req) { return req.header("content-type").starts_with("video/"); }

std::string file_too_large(uint64_t size, uint64_t max) {
  return "file too large: " + std::to_string(size) + " bytes (max " + std::to_string(max) + ")";
}

net::HttpResponse internal_error(std::string_view what, const std::string& why) {
  log_error("media upload failed", {{"step", std::string(what)}, {"error", why}});
  return api_error(500, "internal error");
}

// The BUD-02 blob descriptor (§5.4). `size` is this upload's; the rest comes
// from the sidecar, which holds the first upload's time.
std::string descriptor_json(std::string_view base_url, std::string_view sha, uint64_t size, const engine::MediaMeta& meta) {
  JsonFields out;
  out.string("url", std::string(base_url) + "/" + std::string(sha) + "." + meta.ext)
      .string("sha256", sha)
      .number("size", size)
      .string("type", meta.mime_type)
      .number("uploaded", meta.uploaded_at);
  if (!meta.dim.empty()) out.string("dim", meta.dim);
  if (!meta.blurhash.empty()) out.string("blurhash", meta.blurhash);
  // The sidecar keeps the key; the URL follows today's base (§4, Buzz).
  if (!meta.thumb_url.empty()) out.string("thumb", std::string(base_url) + "/" + meta.thumb_url);
  if (meta.duration_secs) out.json("duration", engine::media_duration_json(*meta.duration_secs));
  return out.str();
}

engine::AuditRecord upload_audit_record(std::string_view sha, const engine::Pubkey& signer, std::string_view mime,
                                        uint64_t size) {
  std::string meta = json_object({{"mime", json_string(mime)}, {"sha256", json_string(sha)}, {"size", std::to_string(size)}});
  return {std::string(sha), engine::kKindMediaUpload, engine::to_hex(signer), std::string(engine::kActionMediaUploaded), "",
          std::move(meta)};
}

}  // namespace

net::HeadDecision Media::admit_upload(const net::HttpRequest& head) {
  engine::Pubkey signer;
  if (auto refusal = authorize_upload(head, kBlossomMaxAgeBeforeBody, "", &signer)) {
    return {std::nullopt, std::move(refusal), std::nullopt};
  }
  // Counted here, once per upload: the body's second authorization is the same call.
  if (auto refusal = throttle_.admit_api_call(signer)) return {std::nullopt, std::move(refusal), std::nullopt};
  // §3.1: a video/* Content-Type has its own limit (routing only: the bytes
  // still decide the type), checked on the declared length first, so 500 MB
  // are never buffered and rarely sent.
  const bool video = video_upload(head);
  const uint64_t max = video ? options_.max_video_bytes : std::max(options_.max_image_bytes, options_.max_file_bytes);
  if (!head.chunked && head.content_length > max) {
    return {std::nullopt, api_error(413, file_too_large(head.content_length, max)), std::nullopt};
  }
  if (!video && !head.chunked && head.content_length <= kBufferedUploadBytes) {
    return {size_t(kBufferedUploadBytes), std::nullopt, std::nullopt};
  }
  // Anything larger goes to disk as it arrives, its length held against the
  // budget until it is answered (a chunked body's: the limit).
  UploadBudget::Outcome outcome;
  auto hold = budget_.reserve(signer, head.chunked ? max : head.content_length, &outcome);
  if (!hold) {
    stats_.upload_budget_refusals.fetch_add(1, std::memory_order_relaxed);
    return {std::nullopt,
            outcome == UploadBudget::Outcome::kPubkeyFull
                ? api_error(429, "rate-limited: too many bytes of your uploads in progress (max " +
                                     std::to_string(budget_.pubkey_max()) + "), retry when one finishes")
                : api_error(503, "too many bytes of uploads in progress on the relay (max " +
                                     std::to_string(budget_.relay_max()) + "), retry later"),
            std::nullopt};
  }
  net::SpoolSpec spool{options_.spool_dir, max, video ? kVideoUploadTimeoutSecs : kFileUploadTimeoutSecs,
                       [](uint64_t received, uint64_t limit) { return api_error(413, file_too_large(received, limit)); },
                       options_.min_upload_bytes_per_sec, std::move(hold)};
  return {std::nullopt, std::nullopt, std::move(spool)};
}

engine::Result<std::vector<std::string>> Media::upload_scopes(std::string_view token, const engine::Pubkey& signer) const {
  if (token.starts_with(engine::kTokenPrefix)) {  // docs/reference/media.md §2.3: the token's owner must be the signer
    auto found = tokens_.find(engine::hash_token(token));
    if (!found) return engine::Error{found.error()};
    const std::optional<engine::ApiToken>& t = *found;
    if (!t) return engine::Error{"unknown API token"};
    if (!t->active(engine::unix_now())) return engine::Error{"API token revoked or expired"};
    if (t->owner != signer) return engine::Error{"API token belongs to another pubkey"};
    tokens_.touch(*t, engine::unix_now());
    return t->scopes;
  }
  if (options_.require_auth_token) return engine::Error{"missing API token (BUZZ_REQUIRE_AUTH_TOKEN)"};
  if (!gatekeeper_.allowlisted(signer)) return engine::Error{"signer not on the pubkey allow-list"};
  return std::vector<std::string>{"files:read", "files:write"};  // dev mode (§2.3)
}

std::optional<net::HttpResponse> Media::authorize_upload(const net::HttpRequest& req, uint64_t max_age,
                                                         std::string_view body_sha256, engine::Pubkey* who) {
  auto refuse = [&](int status, std::string_view message, const std::string& reason) {
    log_info("media upload refused", {{"reason", reason}, {"peer", req.peer}});
    return api_error(status, message);
  };
  BlossomUpload upload{req.header("authorization"), req.header("x-sha-256"), body_sha256};
  auto signer = verify_blossom_upload(upload, options_.authority, engine::unix_now(), max_age);
  if (!signer) return refuse(401, kAuthFailed, signer.error());
  auto scopes = upload_scopes(req.header("x-auth-token"), *signer);
  if (!scopes) return refuse(401, kAuthFailed, scopes.error());
  if (std::find(scopes->begin(), scopes->end(), "files:write") == scopes->end()) {
    return refuse(403, "insufficient scope", "no files:write scope");
  }
  // Its standing on the relay, as every HTTP caller's (server/access/key_proof.h):
  // not banned, and on a closed relay a member or vouched for.
  const KeyProof proof{.pubkey = *signer, .event_kind = kind::kBlossomAuth};
  switch (prover_.standing(req, proof, engine::unix_now())) {
    case KeyProver::Standing::kAdmitted: break;
    case KeyProver::Standing::kBanned: return refuse(403, "pubkey is banned", "pubkey is banned");
    case KeyProver::Standing::kMultipleVouchHeaders:
      return api_error(400, "invalid_auth_tag", "multiple X-Auth-Tag headers not allowed");
    case KeyProver::Standing::kNotMember:
      return refuse(403, "relay membership required", "not a relay member: " + engine::to_hex(*signer));
  }
  *who = *signer;
  return std::nullopt;
}

net::HttpResponse Media::upload(const net::HttpRequest& req) {
  if (!req.spooled) return upload_file(req, req.body);
  if (video_upload(req)) return upload_video(req);
  // Past kBufferedUploadBytes the body came to disk; this worker reads one
  // such body at a time, so memory holds one, however many wait.
  std::string body(size_t(req.spooled->size()), '\0');
  for (size_t done = 0; done < body.size();) {
    ssize_t n = ::pread(req.spooled->fd(), body.data() + done, body.size() - done, off_t(done));
    if (n <= 0 && errno != EINTR) return internal_error("reading the upload", n == 0 ? "short file" : std::strerror(errno));
    if (n > 0) done += size_t(n);
  }
  return upload_file(req, body);
}

net::HttpResponse Media::upload_file(const net::HttpRequest& req, const std::string& body) {
  // The type comes from the bytes, never from Content-Type (§3.1): one of the
  // four previewable images takes the image path, anything else the file path.
  auto sniffed = engine::sniff_mime(body);
  if (!sniffed) return internal_error("mime sniffing", sniffed.error());
  std::string mime = sniffed->value_or("");
  std::string_view ext = image_extension(mime);
  std::optional<engine::ImageSize> size;
  if (!ext.empty()) {
    // §3.2 in its order: size by type, then the dimensions from the header.
    uint64_t max = mime == "image/gif" ? options_.max_gif_bytes : options_.max_image_bytes;
    if (body.size() > max) return api_error(413, file_too_large(body.size(), max));
    size = engine::read_image_size(mime, body);
    if (!size) return api_error(400, "invalid image data");
    if (uint64_t(size->width) * size->height > kMaxImagePixels) return api_error(413, "image dimensions too large");
  } else {
    // §3.4: no signature is a plain download; active content and executables never are.
    if (body.size() > options_.max_file_bytes) return api_error(413, file_too_large(body.size(), options_.max_file_bytes));
    if (mime.empty()) mime = "application/octet-stream";
    if (denied_file_type(mime)) return api_error(415, "disallowed content type: " + mime);
    ext = file_extension(mime);
  }
  const std::string sha = engine::sha256_hex(body);
  return commit_upload(req, sha, body.size(), [&]() -> StoredOrRefused {
    engine::MediaMeta meta{"", "", "", std::string(ext), mime, body.size(), 0, std::nullopt, ""};
    std::string thumbnail;
    if (size) {
      // §3.2 step 6 and §4: the full decode, then the thumbnail and its blurhash.
      // An image that does not decode is refused before anything is stored.
      auto pixels = decode_image(mime, body, kMaxImagePixels);
      if (!pixels) {
        log_info("media upload refused", {{"reason", pixels.error()}, {"peer", req.peer}});
        return api_error(400, "invalid image data");
      }
      const Pixels thumb = fit_within(*pixels, kThumbnailBox);
      pixels->rgba = {};  // the full image is no longer needed
      auto jpeg = encode_jpeg(thumb, kThumbnailQuality);
      if (!jpeg) return internal_error("encoding the thumbnail", jpeg.error());
      thumbnail = std::move(*jpeg);
      meta.dim = std::to_string(size->width) + "x" + std::to_string(size->height);
      meta.blurhash = blurhash(thumb, 4, 3);
      meta.thumb_url = sha + ".thumb.jpg";
    }
    if (auto s = blobs_.put_blob(sha, ext, body); !s) return internal_error("storing the blob", s.error());
    if (!thumbnail.empty()) {
      if (auto s = blobs_.put_thumbnail(sha, thumbnail); !s) return internal_error("storing the thumbnail", s.error());
    }
    return meta;
  });
}

net::HttpResponse Media::upload_video(const net::HttpRequest& req) {
  net::SpooledBody& file = *req.spooled;
  // §3.3 step 2: the type from the first 4096 bytes; only MP4 goes on.
  std::string front(size_t(std::min<uint64_t>(file.size(), kVideoSniffBytes)), '\0');
  if (::pread(file.fd(), front.data(), front.size(), 0) != ssize_t(front.size())) {
    return internal_error("reading the video", std::strerror(errno));
  }
  auto sniffed = engine::sniff_mime(front);
  if (!sniffed) return internal_error("mime sniffing", sniffed.error());
  if (!*sniffed) return api_error(400, "unknown content type");
  if (**sniffed != "video/mp4") return api_error(415, "disallowed content type: " + **sniffed);
  // Step 3 (the second authorization) is commit_upload's; step 4 follows it,
  // unless these bytes are already stored (and so passed it before).
  const std::string& sha = file.sha256_hex();
  return commit_upload(req, sha, file.size(), [&]() -> StoredOrRefused {
    VideoCheck video = inspect_mp4(VideoBytes::of_file(file.fd(), file.size()));
    if (!video.ok) return api_error(video.status, video.error);
    auto moved = blobs_.put_blob_file(sha, "mp4", file.path(), file.fd());
    if (!moved) return internal_error("storing the blob", moved.error());
    if (*moved) file.release();  // renamed into place; otherwise the temporary file goes with the request
    // No thumbnail: the client uploads a poster frame as an image of its own.
    return engine::MediaMeta{std::to_string(video.info.width) + "x" + std::to_string(video.info.height),
                             "", "", "mp4", "video/mp4", file.size(), 0, video.info.duration_secs, ""};
  });
}

net::HttpResponse Media::commit_upload(const net::HttpRequest& req, const std::string& sha, uint64_t size,
                                       const std::function<StoredOrRefused()>& store) {
  engine::Pubkey signer;
  const uint64_t max_age = video_upload(req) ? kBlossomMaxAgeVideo : kBlossomMaxAgeImage;
  if (auto refusal = authorize_upload(req, max_age, sha, &signer)) return std::move(*refusal);

  // A blob already stored (sidecar and object) is answered from its sidecar,
  // writing nothing (§5.3); a sidecar without its object is uploaded again.
  auto stored = blobs_.meta(sha);
  if (!stored) return internal_error("reading the sidecar", stored.error());
  std::optional<engine::MediaMeta> meta = std::move(*stored);
  if (meta) {
    auto object = blobs_.open_blob(sha + "." + meta->ext);
    if (!object) return internal_error("opening the blob", object.error());
    if (!*object) meta.reset();
  }
  if (!meta) {
    StoredOrRefused fresh = store();
    if (auto* refusal = std::get_if<net::HttpResponse>(&fresh)) return std::move(*refusal);
    meta = std::move(std::get<engine::MediaMeta>(fresh));
    meta->uploaded_at = engine::unix_now();
    if (auto s = blobs_.put_meta(sha, *meta); !s) return internal_error("storing the sidecar", s.error());
  }
  // Every successful answer is audited (docs/reference/audit.md §5.1); one that cannot be
  // is not given, and the client's retry takes the idempotent path above.
  if (!writer_.submit_audit(upload_audit_record(sha, signer, meta->mime_type, size))) {
    return internal_error("auditing", "store writer queue full");
  }
  stats_.media_uploads[media_upload_label(meta->mime_type)].fetch_add(1, std::memory_order_relaxed);
  return net::HttpResponse::json(200, descriptor_json(options_.base_url, sha, size, *meta));
}

}  // namespace buzz::server
