// Local content-addressed media storage; see media_store.h.
#include "engine/media_store.h"

#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "engine/canonical.h"
#include "engine/file_digest.h"
#include "engine/hex.h"
#include "engine/json_text.h"
#include "engine/signature.h"

namespace buzz::engine {
namespace {

namespace fs = std::filesystem;

constexpr mode_t kDirMode = 0750;
constexpr mode_t kTempMode = 0600;   // until it is whole
constexpr mode_t kFileMode = 0640;
constexpr time_t kStaleTempSecs = 3600;

Error io_error(const std::string& what, const std::string& path) {
  return Error{"media store: " + what + " " + path + ": " + std::strerror(errno)};
}

// What follows "{sha}." in a key: [a-z0-9] words joined by single dots.
bool is_key_suffix(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.' || s.find("..") != std::string_view::npos) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
  });
}

Status make_dirs(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Error{"media store: cannot create " + path + ": " + ec.message()};
  fs::permissions(path, fs::perms(kDirMode), ec);  // best effort: the umask may be stricter
  return {};
}

Status write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error("cannot write", path);
    bytes.remove_prefix(size_t(n));
  }
  return {};
}

std::string temp_name() {
  uint8_t random[16];
  random_bytes(random, sizeof random);
  return to_hex(random, sizeof random) + ".part";
}

}  // namespace

std::string media_duration_json(double secs) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, secs);
  return ec == std::errc() ? std::string(buf, end) : "0";
}

std::string media_meta_json(const MediaMeta& m) {
  JsonFields out;
  out.string("dim", m.dim)
      .string("blurhash", m.blurhash)
      .string("thumb_url", m.thumb_url)
      .string("ext", m.ext)
      .string("mime_type", m.mime_type)
      .number("size", m.size)
      .number("uploaded_at", m.uploaded_at);
  if (m.duration_secs) out.json("duration_secs", media_duration_json(*m.duration_secs));
  if (!m.channel.empty()) out.string("channel", m.channel);
  return out.str();
}

Result<MediaMeta> parse_media_meta(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object o;
  if (parser.parse(json.data(), json.size()).get(o)) return Error{"media sidecar: not a JSON object"};
  MediaMeta m;
  auto text = [&](const char* key, std::string* out) {
    std::string_view v;
    if (o[key].get(v)) return false;
    out->assign(v);
    return true;
  };
  if (!text("dim", &m.dim) || !text("blurhash", &m.blurhash) || !text("thumb_url", &m.thumb_url) ||
      !text("ext", &m.ext) || !text("mime_type", &m.mime_type) || o["size"].get(m.size)) {
    return Error{"media sidecar: a field is missing or has the wrong type"};
  }
  if (o["uploaded_at"].error() != simdjson::NO_SUCH_FIELD && o["uploaded_at"].get(m.uploaded_at)) {
    return Error{"media sidecar: uploaded_at is not an unsigned integer"};
  }
  if (o["duration_secs"].error() != simdjson::NO_SUCH_FIELD) {
    double d = 0;
    if (o["duration_secs"].get(d)) return Error{"media sidecar: duration_secs is not a number"};
    m.duration_secs = d;
  }
  if (o["channel"].error() != simdjson::NO_SUCH_FIELD && !text("channel", &m.channel)) {
    return Error{"media sidecar: channel is not a string"};
  }
  return m;
}

BlobFile::~BlobFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::string> BlobFile::read(uint64_t offset, size_t length) const {
  std::string out(length, '\0');
  size_t got = 0;
  while (got < length) {
    ssize_t n = ::pread(fd_, out.data() + got, length - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{std::string("media store: read failed: ") + std::strerror(errno)};
    if (n == 0) break;
    got += size_t(n);
  }
  out.resize(got);
  return out;
}

Result<MediaStore> MediaStore::open(const std::string& root) {
  for (const char* sub : {"/blobs", "/meta", "/tmp"}) {
    if (Status s = make_dirs(root + sub); !s) return Error{s.error()};
  }
  std::error_code ec;
  time_t now = ::time(nullptr);
  for (const auto& entry : fs::directory_iterator(root + "/tmp", ec)) {
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) == 0 && now - st.st_mtime > kStaleTempSecs) fs::remove(entry.path(), ec);
  }
  return MediaStore(root);
}

std::string MediaStore::path_of(std::string_view key) const {
  std::string_view area = "/blobs/";
  if (key.starts_with("_meta/")) {
    key.remove_prefix(6);
    if (key.size() != 69 || !key.ends_with(".json")) return "";
    area = "/meta/";
  }
  if (key.size() < 66 || key[64] != '.' || !is_lower_hex(key.substr(0, 64), 32) || !is_key_suffix(key.substr(65))) {
    return "";
  }
  return root_ + std::string(area) + std::string(key.substr(0, 2)) + "/" + std::string(key.substr(2, 2)) + "/" +
         std::string(key);
}

Status MediaStore::write_file(const std::string& path, std::string_view bytes) const {
  std::string temp = root_ + "/tmp/" + temp_name();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kTempMode);
  if (fd < 0) return io_error("cannot create", temp);
  Status written = write_all(fd, bytes, temp);
  if (written && ::fsync(fd) != 0) written = io_error("cannot fsync", temp);
  if (written && ::fchmod(fd, kFileMode) != 0) written = io_error("cannot chmod", temp);
  ::close(fd);
  std::string dir = fs::path(path).parent_path().string();
  if (written) written = make_dirs(dir);
  if (written && ::rename(temp.c_str(), path.c_str()) != 0) written = io_error("cannot rename into", path);
  if (!written) {
    ::unlink(temp.c_str());  // nothing half-written stays behind
    return written;
  }
  return fsync_dir(dir);
}

Status MediaStore::put_blob(std::string_view sha256_hex, std::string_view ext, std::string_view bytes) {
  std::string path = path_of(std::string(sha256_hex) + "." + std::string(ext));
  if (path.empty()) return Error{"media store: not a blob key: " + std::string(sha256_hex) + "." + std::string(ext)};
  uint8_t digest[32];
  sha256(bytes.data(), bytes.size(), digest);
  if (to_hex(digest, sizeof digest) != sha256_hex) {
    return Error{"media store: the bytes do not hash to " + std::string(sha256_hex)};
  }
  struct stat st {};
  // Same name and size: the same content by construction.
  if (::stat(path.c_str(), &st) == 0 && uint64_t(st.st_size) == bytes.size()) return {};
  return write_file(path, bytes);
}

Result<bool> MediaStore::put_blob_file(std::string_view sha256_hex, std::string_view ext, const std::string& temp_path,
                                       int fd) {
  std::string path = path_of(std::string(sha256_hex) + "." + std::string(ext));
  if (path.empty()) return Error{"media store: not a blob key: " + std::string(sha256_hex) + "." + std::string(ext)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error("cannot stat", temp_path);
  struct stat existing {};
  // Same name and size: the same content by construction.
  if (::stat(path.c_str(), &existing) == 0 && existing.st_size == st.st_size) return false;
  if (::fsync(fd) != 0) return io_error("cannot fsync", temp_path);
  if (::fchmod(fd, kFileMode) != 0) return io_error("cannot chmod", temp_path);
  std::string dir = fs::path(path).parent_path().string();
  if (Status s = make_dirs(dir); !s) return Error{s.error()};
  if (::rename(temp_path.c_str(), path.c_str()) != 0) return io_error("cannot rename into", path);
  if (Status s = fsync_dir(dir); !s) return Error{s.error()};
  return true;
}

Status MediaStore::put_thumbnail(std::string_view sha256_hex, std::string_view jpeg) {
  std::string path = path_of(std::string(sha256_hex) + ".thumb.jpg");
  if (path.empty()) return Error{"media store: not a hash: " + std::string(sha256_hex)};
  return write_file(path, jpeg);
}

Status MediaStore::put_meta(std::string_view sha256_hex, const MediaMeta& meta) {
  std::string path = path_of("_meta/" + std::string(sha256_hex) + ".json");
  if (path.empty()) return Error{"media store: not a hash: " + std::string(sha256_hex)};
  return write_file(path, media_meta_json(meta));
}

Result<std::optional<MediaMeta>> MediaStore::meta(std::string_view sha256_hex) const {
  std::string key = "_meta/" + std::string(sha256_hex) + ".json";
  auto file = open_blob(key);
  if (!file) return Error{file.error()};
  if (!*file) return std::optional<MediaMeta>();
  auto json = (*file)->read(0, size_t((*file)->size()));
  if (!json) return Error{json.error()};
  auto parsed = parse_media_meta(*json);
  if (!parsed) return Error{parsed.error() + " (" + key + ")"};
  return std::optional<MediaMeta>(std::move(*parsed));
}

Result<std::optional<BlobFile>> MediaStore::open_blob(std::string_view key) const {
  std::string path = path_of(key);
  if (path.empty()) return std::optional<BlobFile>();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<BlobFile>();
    return io_error("cannot open", path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    Error e = io_error("cannot stat", path);
    ::close(fd);
    return e;
  }
  return std::optional<BlobFile>(std::in_place, fd, uint64_t(st.st_size));
}

}  // namespace buzz::engine
