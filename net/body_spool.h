// A request body streamed to a temporary file as it arrives, instead of being
// buffered in memory: what a service asks for from a request's head
// (HeadDecision::spool) when the body may be hundreds of megabytes (a video
// upload, docs/reference/media.md §3.3).
//
// The loop cuts the body out of the received bytes (Content-Length or
// chunked) and hands each piece to its SpoolWriter, a small worker thread that
// writes it to the file and feeds it to SHA-256, so the service gets the file,
// its size and its hash without a second pass. Why a worker and not the ring:
// the loop's ring only carries socket operations and every completion is
// matched to a connection slot; a file write there would need its own buffer
// lifetimes and ordering, and the hash would still cost the loop ~2 ms per
// MiB. A worker takes both off the loop; the loop only copies the bytes and
// stops reading a connection while more than kSpoolHighWater of them wait.
#pragma once

#include <openssl/evp.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "net/chunked_body.h"
#include "net/connection.h"
#include "net/http.h"

namespace buzz::net {

class Loop;

// Stops reading a connection while this much of its body waits for the disk.
inline constexpr size_t kSpoolHighWater = 4 << 20;
inline constexpr size_t kSpoolLowWater = 1 << 20;
// The writer gets the body in pieces of this size (a receive is only 4 KiB).
inline constexpr size_t kSpoolBatchBytes = 64 << 10;

// What a service asks for in HeadDecision::spool.
struct SpoolSpec {
  std::string dir;        // the temporary file's directory (the final place's filesystem, so it can be renamed)
  uint64_t max_bytes = 0; // a larger Content-Length is refused before any body byte is read;
                          // a chunked body is cut off once it passes this
  int timeout_secs = 600; // the whole body must arrive within this, or the connection is closed
  // The 413 answer, given the bytes received (or declared) and max_bytes.
  std::function<HttpResponse(uint64_t received, uint64_t max)> too_large;
  // Measured over each ping interval once the first has passed: a body that
  // arrives slower is answered 408 and closed. 0 = only the deadline above.
  uint32_t min_bytes_per_sec = 0;
  // Kept as long as the body's file (SpooledBody::hold): the service's share
  // of a budget, given back when the last reference to the file goes.
  std::shared_ptr<const void> hold;
};

// The finished body as the service receives it (HttpRequest::spooled): a file
// open for reading, removed when the last reference goes unless release()d
// (after the service renamed it into place).
class SpooledBody {
 public:
  SpooledBody(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  SpooledBody(const SpooledBody&) = delete;
  SpooledBody& operator=(const SpooledBody&) = delete;
  ~SpooledBody();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  const std::string& sha256_hex() const { return sha256_hex_; }
  // The file has a new name now: leave it on disk.
  void release() { path_.clear(); }
  // Kept until this body goes (SpoolSpec::hold).
  void hold(std::shared_ptr<const void> h) { hold_ = std::move(h); }

 private:
  friend class SpoolWriter;
  int fd_;
  std::string path_;
  std::shared_ptr<const void> hold_;
  uint64_t size_ = 0;
  std::string sha256_hex_;
};

// Creates the temporary file (0600) in spec.dir; nullptr if it cannot.
std::shared_ptr<SpooledBody> create_spool_file(const std::string& dir);

// Removes every temporary file a spool left in `dir`: at start-up, nothing is
// streaming, so whatever is there is a crash's leftover. Returns how many.
size_t remove_spool_leftovers(const std::string& dir);

// One body being streamed: the loop's side (the decoder, the count) and the
// writer's (the hash, the failure), shared until the body is whole.
struct BodySpool {
  BodySpool(std::shared_ptr<SpooledBody> f, ConnId c, SpoolSpec s) : file(std::move(f)), conn(c), spec(std::move(s)) {}
  ~BodySpool();

  std::shared_ptr<SpooledBody> file;
  const ConnId conn;
  const SpoolSpec spec;
  // --- loop thread ---
  uint64_t received = 0;  // body bytes handed to the writer
  uint32_t started_tick = 0;
  uint32_t pace_tick = 0;       // the start of the interval SpoolSpec::min_bytes_per_sec is measured over
  uint64_t pace_bytes = 0;      // and what had arrived by then
  bool chunked = false;
  ChunkedDecoder decoder;
  std::string batch;       // body bytes gathered into kSpoolBatchBytes before they go to the writer
  bool finishing = false;  // the whole body is handed over; waiting for the writer to finish it
  // --- shared ---
  std::atomic<size_t> in_flight{0};   // bytes handed over but not yet written
  std::atomic<bool> paused{false};    // the loop stopped reading for it; the writer resumes it
  std::atomic<bool> cancelled{false}; // the connection is gone: write nothing more
  // --- writer thread ---
  EVP_MD_CTX* sha = nullptr;
  bool failed = false;
};

// The worker thread of one loop that writes and hashes its spooled bodies,
// in the order the loop handed the pieces over.
class SpoolWriter {
 public:
  explicit SpoolWriter(Loop& loop);
  ~SpoolWriter();  // drops what is queued and joins
  SpoolWriter(const SpoolWriter&) = delete;
  SpoolWriter& operator=(const SpoolWriter&) = delete;

  // Loop thread: queue bytes of spool's body; `last` finishes it, after which
  // the loop gets Loop::on_spool_done (on its own thread).
  void write(const std::shared_ptr<BodySpool>& spool, std::string bytes, bool last);

 private:
  struct Job {
    std::shared_ptr<BodySpool> spool;
    std::string bytes;
    bool last;
  };
  void run();
  void handle(Job& job);

  Loop& loop_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace buzz::net
