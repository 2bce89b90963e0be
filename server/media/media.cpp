// The media area: its routes, and the services it is handed; see media.h.
#include "server/media/media.h"

#include "engine/thread_role.h"
#include "server/common/api_error.h"

namespace buzz::server {

Media::Media(Options options, const Services& s)
    : options_(std::move(options)),
      blobs_(s.blobs),
      team_(s.team),
      tokens_(s.tokens),
      gatekeeper_(s.gatekeeper),
      prover_(s.prover),
      throttle_(s.throttle),
      writer_(s.writer),
      stats_(s.stats),
      budget_(options_.upload_bytes_in_flight, options_.upload_bytes_per_pubkey) {}

Media::~Media() { stop(); }

void Media::start() {
  worker_ = std::thread([this] {
    engine::set_thread_role("buzz-media", engine::ThreadRole::kBackground);
    work();
  });
}

void Media::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void Media::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !uploads_.empty(); });
    if (uploads_.empty()) return;  // stopping, with every upload answered
    Upload u = std::move(uploads_.front());
    uploads_.pop_front();
    lock.unlock();
    u.later(upload(u.req));
    lock.lock();
  }
}

// The media area (docs/reference/media.md §1): uploads and blobs, and 404 / 405 for the
// Blossom routes Buzz leaves out (list, delete, mirror, the BUD-06 preflight).
std::optional<net::HttpResponse> Media::route(const net::HttpRequest& req, Later later) {
  std::string_view name = std::string_view(req.path).substr(std::string_view("/media/").size());
  if (name == "upload") {
    if (req.method != "PUT") return api_error(405, "method not allowed");
    std::lock_guard lock(mu_);
    if (stopping_) return api_error(503, "shutting down");
    if (uploads_.size() >= kMaxQueuedUploads) return api_error(503, "too many uploads in progress, retry");
    uploads_.push_back({req, std::move(later)});
    cv_.notify_one();
    return std::nullopt;
  }
  if (name.empty() || name.find('/') != std::string_view::npos) return api_error(404, "not found");
  if (req.method != "GET" && req.method != "HEAD") return api_error(405, "method not allowed");
  return serve(req, name);
}

}  // namespace buzz::server
