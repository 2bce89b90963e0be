#include "tools/proxy/relay_fetch.h"

#include "tools/cli/cli_error.h"
#include "tools/cli/relay_http.h"

namespace buzz::proxy {

namespace {

FetchAnswer get_with(cli::RelayHttp& http, const std::string& url, const std::string& token) {
  try {
    cli::HttpAnswer a = http.call("GET", url, {{"Authorization", "Bearer " + token}});
    return {a.status, std::move(a.body)};
  } catch (const cli::CliError& e) {
    return {0, e.what()};
  }
}

}  // namespace

FetchAnswer http_get(const std::string& url, const std::string& token) {
  try {
    cli::RelayHttp http;
    return get_with(http, url, token);
  } catch (const cli::CliError& e) {
    return {0, e.what()};
  }
}

std::string http_base_of(const std::string& ws_url) {
  std::string url = ws_url;
  if (url.starts_with("wss://")) url = "https://" + url.substr(6);
  else if (url.starts_with("ws://")) url = "http://" + url.substr(5);
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash != std::string::npos) url.resize(slash);
  return url;
}

RelayFetch::~RelayFetch() { stop(); }

void RelayFetch::start() { thread_ = std::thread([this] { run(); }); }

void RelayFetch::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RelayFetch::get(std::string path, std::function<void(FetchAnswer)> done) {
  {
    std::lock_guard lock(mu_);
    jobs_.emplace_back(std::move(path), std::move(done));
  }
  cv_.notify_one();
}

void RelayFetch::run() {
  cli::RelayHttp http;  // one handle: keep-alive across calls
  for (;;) {
    std::pair<std::string, std::function<void(FetchAnswer)>> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job.second(get_with(http, base_ + job.first, token_));
  }
}

}  // namespace buzz::proxy
