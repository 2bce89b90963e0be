#include "tools/proxy/upstream_link.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>

#include "tools/client/ws_client.h"
#include "tools/sync/relay_link.h"

namespace buzz::proxy {

namespace {
constexpr int kMaxBackoffMs = 30000;
constexpr size_t kBatch = 256;  // messages handed up at once
}  // namespace

UpstreamLink::UpstreamLink(std::string url, Callbacks callbacks) : url_(std::move(url)), cb_(std::move(callbacks)) {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

UpstreamLink::~UpstreamLink() {
  stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void UpstreamLink::start() { thread_ = std::thread([this] { run(); }); }

void UpstreamLink::stop() {
  if (stopping_.exchange(true)) return;
  wake();
  {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void UpstreamLink::wake() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void UpstreamLink::send(std::string text) {
  if (!connected_.load()) return;
  {
    std::lock_guard lock(mu_);
    outbox_.push_back(std::move(text));
  }
  wake();
}

void UpstreamLink::drop() {
  drop_.store(true);
  wake();
}

void UpstreamLink::sleep_for_backoff() {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(backoff_ms_), [this] { return stopping_.load(); });
  backoff_ms_ = std::min(backoff_ms_ * 2, kMaxBackoffMs);
}

void UpstreamLink::run() {
  while (!stopping_.load()) {
    std::string why;
    auto addr = sync::parse_relay_url(url_);
    std::unique_ptr<client::WsClient> ws;
    if (!addr) {
      why = addr.error();
    } else {
      ws = client::WsClient::connect(addr->host, addr->port, &why, addr->path, 5000);
    }
    if (!ws) {
      if (cb_.on_close) cb_.on_close("cannot connect: " + why);
      sleep_for_backoff();
      continue;
    }
    {
      std::lock_guard lock(mu_);
      outbox_.clear();
    }
    drop_.store(false);
    connected_.store(true);
    if (cb_.on_open) cb_.on_open();
    std::vector<std::string> batch;
    while (!stopping_.load() && !drop_.load() && !ws->closed()) {
      pollfd fds[2] = {{ws->fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (::poll(fds, 2, 1000) < 0 && errno != EINTR) break;
      if (fds[1].revents & POLLIN) {
        uint64_t n;
        [[maybe_unused]] ssize_t r = ::read(wake_fd_, &n, sizeof n);
      }
      std::deque<std::string> out;
      {
        std::lock_guard lock(mu_);
        out.swap(outbox_);
      }
      for (const std::string& text : out) {
        if (!ws->send_text(text)) break;
      }
      // Everything already received, handed up in batches.
      while (auto m = ws->recv(0)) {
        batch.push_back(std::move(*m));
        if (batch.size() >= kBatch) cb_.on_messages(std::exchange(batch, {}));
      }
      if (!batch.empty()) cb_.on_messages(std::exchange(batch, {}));
    }
    connected_.store(false);
    const bool clean = ws->close_code() == 1000;
    why = stopping_.load() ? "stopping" : drop_.load() ? "dropped" : "closed (" + std::to_string(ws->close_code()) + ")";
    ws->close();
    if (cb_.on_close) cb_.on_close(why);
    if (clean) backoff_ms_ = 1000;
    if (!stopping_.load()) sleep_for_backoff();
  }
}

}  // namespace buzz::proxy
