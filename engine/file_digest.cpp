// See file_digest.h.
#include "engine/file_digest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <memory>

#include <openssl/evp.h>

namespace buzz::engine {
namespace {

constexpr uint64_t kWritebackBytes = 8 << 20;  // copy_file_sha256's writeback step

}  // namespace

Error errno_error(const char* what, const std::string& path) {
  return Error{std::string(what) + " " + path + ": " + std::strerror(errno)};
}

Status fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open", dir);
  const bool ok = ::fsync(fd) == 0;
  Status s = ok ? Status{} : Status(errno_error("cannot fsync", dir));
  ::close(fd);
  return s;
}

Status read_file_chunks(const std::string& path, const std::function<void(std::string_view)>& chunk) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open", path);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Error e = errno_error("cannot read", path);
      ::close(fd);
      return e;
    }
    if (n == 0) break;
    chunk(std::string_view(buf, size_t(n)));
  }
  ::close(fd);
  return {};
}

Result<uint64_t> sha256_file(const std::string& path, uint8_t out[32]) {
  return copy_file_sha256(path, "", UINT64_MAX, out);
}

Result<uint64_t> copy_file_sha256(const std::string& from, const std::string& to, uint64_t limit, uint8_t out[32],
                                  const std::function<void(uint64_t)>& progress) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  bool ok = ctx && EVP_DigestInit_ex2(ctx.get(), EVP_sha256(), nullptr) == 1;
  int fd = -1;
  if (!to.empty()) {
    fd = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return errno_error("cannot create", to);
  }
  uint64_t size = 0, written_back = 0;
  std::string write_error;
  Status read = read_file_chunks(from, [&](std::string_view bytes) {
    if (size >= limit || !write_error.empty()) return;
    bytes = bytes.substr(0, size_t(std::min<uint64_t>(bytes.size(), limit - size)));
    ok = ok && EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) == 1;
    for (std::string_view left = bytes; fd >= 0 && !left.empty();) {
      ssize_t n = ::write(fd, left.data(), left.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        write_error = errno_error("cannot write", to).reason;
        return;
      }
      left.remove_prefix(size_t(n));
    }
    size += bytes.size();
    if (fd >= 0 && size - written_back >= kWritebackBytes) {
      // Written back as it goes, never as one burst at the end: a burst of
      // dirty pages would make every other fsync on the disk (a relay's WAL)
      // wait behind it. The previous range is waited for, this one started.
      if (written_back >= kWritebackBytes) {
        (void)::sync_file_range(fd, off_t(written_back - kWritebackBytes), off_t(kWritebackBytes),
                                SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
        (void)::posix_fadvise(fd, off_t(written_back - kWritebackBytes), off_t(kWritebackBytes), POSIX_FADV_DONTNEED);
      }
      (void)::sync_file_range(fd, off_t(written_back), off_t(size - written_back), SYNC_FILE_RANGE_WRITE);
      written_back = size;
    }
    if (progress) progress(bytes.size());
  });
  if (fd >= 0) {
    if (write_error.empty() && ::fdatasync(fd) != 0) write_error = errno_error("cannot sync", to).reason;
    ::close(fd);
  }
  if (!read) return Error{read.error()};
  if (!write_error.empty()) return Error{write_error};
  unsigned int n = 0;
  if (!ok || EVP_DigestFinal_ex(ctx.get(), out, &n) != 1 || n != 32) return Error{"cannot hash " + from + ": SHA-256 failed"};
  return size;
}

}  // namespace buzz::engine
