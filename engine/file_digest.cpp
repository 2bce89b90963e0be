// See file_digest.h.
#include "engine/file_digest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <openssl/evp.h>

namespace buzz::engine {
namespace {

Error errno_error(const char* what, const std::string& path) {
  return Error{std::string(what) + " " + path + ": " + std::strerror(errno)};
}

}  // namespace

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
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  bool ok = ctx && EVP_DigestInit_ex2(ctx.get(), EVP_sha256(), nullptr) == 1;
  uint64_t size = 0;
  Status read = read_file_chunks(path, [&](std::string_view bytes) {
    ok = ok && EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) == 1;
    size += bytes.size();
  });
  if (!read) return Error{read.error()};
  unsigned int n = 0;
  if (!ok || EVP_DigestFinal_ex(ctx.get(), out, &n) != 1 || n != 32) return Error{"cannot hash " + path + ": SHA-256 failed"};
  return size;
}

}  // namespace buzz::engine
