// MediaStore: uploaded media as content-addressed files on the local disk
// (docs/reference/media.md §9.2), under the logical keys of the upstream S3 layout (§5.1):
//
//   {sha}.{ext}, {sha}.thumb.jpg -> <root>/blobs/9f/86/{sha}.{ext}
//   _meta/{sha}.json             -> <root>/meta/9f/86/{sha}.json
//                                   <root>/tmp/  (files being written)
//
// Every file is written under tmp/, fsynced, renamed into place and its
// directory fsynced, so a reader sees a whole file or none. The sidecar is
// written last and is the commit point: a blob without one is invisible
// (§5.3), which is how a failed or interrupted upload never shows.
//
// Thread-safe: it holds only its root. Writers of one hash write identical
// bytes and rename is atomic, so concurrent uploads of a blob are harmless.
// Calls block on disk I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/result.h"

namespace buzz::engine {

// The sidecar _meta/{sha}.json (§5.2): what serving a blob relies on.
struct MediaMeta {
  std::string dim;        // "WxH"; "" for generic files
  std::string blurhash;   // "" if none
  std::string thumb_url;  // "" if none
  std::string ext;        // authoritative extension
  std::string mime_type;  // authoritative MIME, sent as Content-Type
  uint64_t size = 0;
  uint64_t uploaded_at = 0;  // unix seconds of the first successful upload
  std::optional<double> duration_secs;  // video only (§3.3); absent from other sidecars
  // Buzz (§6.5): the channel whose readers alone are served the blob (a
  // huddle recording's track); "" = anyone who names it, as upstream.
  std::string channel;

  bool operator==(const MediaMeta&) const = default;
};

// The sidecar's JSON, fields in upstream order; and back (missing
// uploaded_at reads as 0, as for older sidecars).
std::string media_meta_json(const MediaMeta& meta);
Result<MediaMeta> parse_media_meta(std::string_view json);
// A video's duration as the sidecar and the descriptor write it: the
// shortest decimal that reads back as the same double ("12.48", "1").
std::string media_duration_json(double secs);

// One stored object open for reading. Move-only; closes on destruction.
class BlobFile {
 public:
  BlobFile(int fd, uint64_t size) : fd_(fd), size_(size) {}
  BlobFile(BlobFile&& other) noexcept : fd_(other.fd_), size_(other.size_) { other.fd_ = -1; }
  BlobFile& operator=(BlobFile&&) = delete;
  ~BlobFile();

  uint64_t size() const { return size_; }
  // `length` bytes from `offset` (fewer only at the end of the file).
  Result<std::string> read(uint64_t offset, size_t length) const;

 private:
  int fd_;
  uint64_t size_;
};

class MediaStore {
 public:
  // Creates root/{blobs,meta,tmp} as needed and removes temp files older than
  // an hour (left by a crash; younger ones may belong to a running upload).
  static Result<MediaStore> open(const std::string& root);

  // The file a logical key is stored in; "" if the key is not one (a
  // 64-lowercase-hex name, then an extension of [a-z0-9.] without "..").
  std::string path_of(std::string_view key) const;

  // Stores `bytes` under {sha256_hex}.{ext}, refusing bytes that do not hash
  // to that name. A blob already stored with the same size is left as it is.
  Status put_blob(std::string_view sha256_hex, std::string_view ext, std::string_view bytes);
  // Stores the file at `temp_path` (under root()/tmp, open as `fd`, already
  // hashed to sha256_hex as it was written) under {sha256_hex}.{ext} by
  // renaming it: fsync, rename, fsync of the directory. True if it was moved
  // (its temporary name is gone); false if the blob was already stored with
  // the same size and the temporary file was left for the caller to remove.
  Result<bool> put_blob_file(std::string_view sha256_hex, std::string_view ext, const std::string& temp_path, int fd);
  // Stores an image blob's thumbnail under {sha256_hex}.thumb.jpg (docs/reference/media.md §4).
  Status put_thumbnail(std::string_view sha256_hex, std::string_view jpeg);
  // Writes the sidecar of an already stored blob: the commit point.
  Status put_meta(std::string_view sha256_hex, const MediaMeta& meta);

  // The sidecar, or nullopt if there is none.
  Result<std::optional<MediaMeta>> meta(std::string_view sha256_hex) const;
  // A stored object by key, or nullopt if there is none.
  Result<std::optional<BlobFile>> open_blob(std::string_view key) const;

  const std::string& root() const { return root_; }

 private:
  explicit MediaStore(std::string root) : root_(std::move(root)) {}
  // tmp/ + fsync + rename + fsync of the directory.
  Status write_file(const std::string& path, std::string_view bytes) const;

  std::string root_;
};

}  // namespace buzz::engine
