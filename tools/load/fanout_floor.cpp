// The fan-out latency floor; see fanout_floor.h.
#include "tools/load/fanout_floor.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/signature.h"
#include "tools/load/delivery_reader.h"
#include "tools/load/latency_readers.h"
#include "tools/load/load_client.h"
#include "tools/load/send_floor.h"

namespace buzz::load {
namespace {

constexpr int kFloorSenders = 2;

// Hands the events, in order, from the publishing thread to the sending threads.
class Announcements {
 public:
  void publish() {
    {
      std::lock_guard lock(mu_);
      ++published_;
    }
    cv_.notify_all();
  }
  void finish() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
  }
  // Waits for event `next` to be published; false once finished without it.
  bool wait_for(int next) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return published_ > next || done_; });
    return published_ > next;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int published_ = 0;
  bool done_ = false;
};

}  // namespace

Deliveries fanout_latency_floor(const FanoutFloorOptions& o, const engine::Event& signed_event) {
  LoopbackPairs pairs(o.connections);
  const int total = o.rate * o.seconds;
  std::vector<std::atomic<double>> sent_at(size_t(std::max(total, 1)));
  const std::string path = o.dir + "/fanout-floor.log";
  const int log = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log < 0) throw std::runtime_error("fan-out floor: cannot open " + path + ": " + std::strerror(errno));
  const std::string record(o.frame_bytes, 'r');

  Announcements announced;
  std::vector<std::thread> senders;
  for (int s = 0; s < kFloorSenders; ++s) {
    senders.emplace_back([&, s] {
      for (int event = 0; announced.wait_for(event); ++event) {
        const std::string frame = delivery_frame(event, o.frame_bytes);
        for (size_t c = size_t(s); c < pairs.senders.size(); c += kFloorSenders) {
          (void)::send(pairs.senders[c], frame.data(), frame.size(), MSG_NOSIGNAL);
        }
      }
    });
  }

  // The publisher on a thread of its own, the readers on this one, as in `buzz-load fanout`.
  std::string failed;
  std::thread publisher([&] {
    const double start = now_s();
    for (int i = 0; i < total && failed.empty(); ++i) {
      sleep_until_s(start + double(i) / o.rate);
      sent_at[size_t(i)].store(now_s(), std::memory_order_relaxed);
      (void)engine::verify_signature(signed_event.id, signed_event.pubkey, signed_event.sig);
      if (::write(log, record.data(), record.size()) != ssize_t(record.size()) || ::fdatasync(log) != 0) {
        failed = std::strerror(errno);
      } else {
        announced.publish();
      }
    }
    announced.finish();
  });
  Deliveries run = read_deliveries(pairs.receivers, {}, sent_at, size_t(total) * pairs.receivers.size(),
                                   now_s() + o.seconds + 10);
  publisher.join();
  for (auto& t : senders) t.join();
  ::close(log);
  ::unlink(path.c_str());
  if (!failed.empty()) throw std::runtime_error("fan-out floor: the durable append failed: " + failed);
  return run;
}

}  // namespace buzz::load
