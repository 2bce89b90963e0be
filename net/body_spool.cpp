// Request bodies streamed to temporary files; see body_spool.h.
#include "net/body_spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "net/loop.h"

namespace buzz::net {
namespace {

constexpr const char* kSpoolPrefix = "spool-";

std::string hex(const unsigned char* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[p[i] >> 4];
    out += kDigits[p[i] & 15];
  }
  return out;
}

bool write_all(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

}  // namespace

SpooledBody::~SpooledBody() {
  if (fd_ >= 0) ::close(fd_);
  if (!path_.empty()) ::unlink(path_.c_str());
}

std::shared_ptr<SpooledBody> create_spool_file(const std::string& dir) {
  unsigned char random[16];
  if (RAND_bytes(random, sizeof random) != 1) return nullptr;
  std::string path = dir + "/" + kSpoolPrefix + hex(random, sizeof random) + ".part";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  return std::make_shared<SpooledBody>(fd, std::move(path));
}

size_t remove_spool_leftovers(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  size_t removed = 0;
  while (dirent* e = ::readdir(d)) {
    if (std::string_view(e->d_name).starts_with(kSpoolPrefix) && ::unlinkat(::dirfd(d), e->d_name, 0) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

BodySpool::~BodySpool() {
  if (sha) EVP_MD_CTX_free(sha);
}

SpoolWriter::SpoolWriter(Loop& loop) : loop_(loop), thread_([this] { run(); }) {}

SpoolWriter::~SpoolWriter() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    jobs_.clear();  // the files go with their last reference
  }
  cv_.notify_one();
  thread_.join();
}

void SpoolWriter::write(const std::shared_ptr<BodySpool>& spool, std::string bytes, bool last) {
  spool->in_flight.fetch_add(bytes.size(), std::memory_order_relaxed);
  {
    std::lock_guard lock(mu_);
    jobs_.push_back({spool, std::move(bytes), last});
  }
  cv_.notify_one();
}

void SpoolWriter::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    handle(job);
    job = {};  // a cancelled spool's file is removed here, off the loop
    lock.lock();
  }
}

void SpoolWriter::handle(Job& job) {
  BodySpool& s = *job.spool;
  SpooledBody& f = *s.file;
  if (!s.cancelled.load(std::memory_order_relaxed) && !s.failed) {
    if (!s.sha) {
      s.sha = EVP_MD_CTX_new();
      s.failed = !s.sha || EVP_DigestInit_ex(s.sha, EVP_sha256(), nullptr) != 1;
    }
    if (!s.failed && !job.bytes.empty()) {
      s.failed = !write_all(f.fd_, job.bytes.data(), job.bytes.size()) ||
                 EVP_DigestUpdate(s.sha, job.bytes.data(), job.bytes.size()) != 1;
      f.size_ += job.bytes.size();
    }
  }
  // Sequentially consistent, as the loop's store to `paused` and its reload
  // of in_flight: one of the two sides always sees the other's change.
  size_t left = s.in_flight.fetch_sub(job.bytes.size()) - job.bytes.size();
  const ConnId conn = s.conn;
  if (job.last) {
    if (!s.failed && !s.cancelled.load(std::memory_order_relaxed)) {
      unsigned char digest[32];
      unsigned len = 0;
      s.failed = EVP_DigestFinal_ex(s.sha, digest, &len) != 1 || ::lseek(f.fd_, 0, SEEK_SET) != 0;
      f.sha256_hex_ = hex(digest, len);
    }
    loop_.post([&loop = loop_, spool = job.spool] { loop.on_spool_done(spool); });
  } else if (left < kSpoolLowWater && s.paused.exchange(false)) {
    loop_.post([&loop = loop_, conn] { loop.on_spool_drained(conn); });
  }
}

}  // namespace buzz::net
