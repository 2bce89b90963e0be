// LinkPreviews: what a link in a message shows under it (its page's title,
// description and picture), fetched by the relay for the web client through
// the workflows' SSRF-safe outbound request (server/workflows/outbound_http.h:
// every address checked, never a private one unless the operator allows that
// host, one deadline, a size cap), so a reader's browser never contacts the
// linked site and the page's CSP stays "this relay only". Redirects are
// followed by hand, each hop checked again. The picture comes back as a small
// JPEG in a data: URL (decoded and shrunk here, like an upload's thumbnail).
// Answers are cached (bounded by bytes, an hour; a failure five minutes).
//
// Threads: get() on any loop thread; the fetches run on the workers started
// here, which answer through the callback given to get(). Bounded: a full
// queue refuses (503) rather than waits.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "net/http.h"
#include "server/workflows/outbound_http.h"

namespace buzz::server {

// What a page's head says of it (Open Graph, else <title> and the description meta).
struct PagePreview {
  std::string title, description, site_name, image_url;  // image_url absolute, "" when none
};
PagePreview parse_page_preview(std::string_view html, std::string_view page_url);

// A URL relative to a page, made absolute (http/https only; "" when it cannot be).
std::string resolve_url(std::string_view base, std::string_view ref);

class LinkPreviews {
 public:
  struct Options {
    OutboundHttp::Options http;  // allow_hosts: the workflows' (BUZZ_WORKFLOW_WEBHOOK_ALLOW_HOSTS)
    size_t workers = 2;
    size_t max_queued = 64;              // distinct URLs waiting for a worker
    size_t cache_bytes = 8u << 20;       // answers kept, pictures included
    uint64_t page_timeout_ms = 5000;     // each request (a page, a redirect, its picture)
    size_t max_page_bytes = 512u << 10;  // of a page, the first bytes read for its head
    size_t max_image_bytes = 2u << 20;   // a picture larger is left out
    int max_redirects = 3;
  };
  using Answer = std::function<void(net::HttpResponse)>;

  explicit LinkPreviews(Options options);
  ~LinkPreviews() { stop(); }
  // Ends the workers once their fetch is done (its answer goes to its loop,
  // stopped or not); the requests still queued get no answer. Idempotent.
  void stop();
  LinkPreviews(const LinkPreviews&) = delete;
  LinkPreviews& operator=(const LinkPreviews&) = delete;

  // The answer for url now (cached, or refused), or nullopt when `later` will
  // be called with it from a worker thread.
  std::optional<net::HttpResponse> get(const std::string& url, Answer later);

 private:
  struct Cached {
    net::HttpResponse response;
    std::chrono::steady_clock::time_point expires;
    std::list<std::string>::iterator lru;
  };
  void work();
  net::HttpResponse fetch(const std::string& url) const;
  std::string picture(const std::string& url) const;  // a data: URL, or ""
  void remember(const std::string& url, const net::HttpResponse& r);

  const Options options_;
  const OutboundHttp http_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::deque<std::string> queue_;
  std::unordered_map<std::string, std::vector<Answer>> waiting_;  // by URL, queued or being fetched
  std::unordered_map<std::string, Cached> cache_;
  std::list<std::string> lru_;  // front: the most recently used
  size_t cached_bytes_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace buzz::server
