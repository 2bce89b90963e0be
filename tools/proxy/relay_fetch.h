// RelayFetch: the proxy's HTTP calls to the relay (the channel list at
// start-up and on refresh, events a reaction points at), made on a worker
// thread of their own with the proxy's API token, so the loop never waits
// on the network. Each answer goes to its callback on the worker thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace buzz::proxy {

struct FetchAnswer {
  long status = 0;    // 0: the relay could not be reached
  std::string body;   // or, with status 0, why
};

// One blocking GET with the Bearer token (start-up, and the worker's own calls).
FetchAnswer http_get(const std::string& url, const std::string& token);

// "ws://host:port/path" → "http://host:port" (wss → https), without the path.
std::string http_base_of(const std::string& ws_url);

class RelayFetch {
 public:
  RelayFetch(std::string base, std::string token) : base_(std::move(base)), token_(std::move(token)) {}
  ~RelayFetch();

  void start();
  void stop();
  // Queues GET {base}{path}.
  void get(std::string path, std::function<void(FetchAnswer)> done);

 private:
  void run();

  std::string base_, token_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::string, std::function<void(FetchAnswer)>>> jobs_;
  bool stopping_ = false;
};

}  // namespace buzz::proxy
