// The fan-out latency floor; see fanout_floor.h.
#include "tools/load/fanout_floor.h"

#include <fcntl.h>
#include <sys/epoll.h>
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
#include "tools/load/load_client.h"
#include "tools/load/send_floor.h"
#include "tools/load/thread_cpu.h"

namespace buzz::load {
namespace {

constexpr int kSenders = 2, kReaders = 2;

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

FanoutFloorRun fanout_latency_floor(const FanoutFloorOptions& o, const engine::Event& signed_event) {
  LoopbackPairs pairs(o.connections);
  const int total = o.rate * o.seconds;
  std::vector<std::atomic<double>> sent_at(size_t(std::max(total, 1)));
  const std::string path = o.dir + "/fanout-floor.log";
  const int log = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log < 0) throw std::runtime_error("fan-out floor: cannot open " + path + ": " + std::strerror(errno));
  const std::string record(o.frame_bytes, 'r');

  Announcements announced;
  std::vector<std::thread> senders;
  for (int s = 0; s < kSenders; ++s) {
    senders.emplace_back([&, s] {
      for (int event = 0; announced.wait_for(event); ++event) {
        const std::string frame = delivery_frame(event, o.frame_bytes);
        for (size_t c = size_t(s); c < pairs.senders.size(); c += kSenders) {
          (void)::send(pairs.senders[c], frame.data(), frame.size(), MSG_NOSIGNAL);
        }
      }
    });
  }

  std::atomic<size_t> received{0};
  const size_t expected = size_t(total) * pairs.receivers.size();
  const double deadline = now_s() + o.seconds + 10;
  std::vector<std::vector<double>> parts(kReaders);
  std::vector<double> reader_cpu(kReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      const int ep = ::epoll_create1(0);
      std::vector<DeliveryReader> reading(pairs.receivers.size());
      for (size_t c = size_t(r); c < pairs.receivers.size(); c += kReaders) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = c;
        ::epoll_ctl(ep, EPOLL_CTL_ADD, pairs.receivers[c], &ev);
      }
      // As the relay's readers (collect_latencies in buzz_load.cpp): epoll,
      // then a timestamp and a DeliveryReader per ready connection.
      epoll_event ready[256];
      std::vector<int> events;
      while (received.load(std::memory_order_relaxed) < expected && now_s() < deadline) {
        const int n = ::epoll_wait(ep, ready, 256, 200);
        for (int i = 0; i < n; ++i) {
          const size_t c = ready[i].data.u64;
          const double t = now_s();
          events.clear();
          if (!reading[c].drain(pairs.receivers[c], &events)) ::epoll_ctl(ep, EPOLL_CTL_DEL, pairs.receivers[c], nullptr);
          for (int event : events) {
            if (size_t(event) >= sent_at.size()) continue;
            parts[size_t(r)].push_back(t - sent_at[size_t(event)].load(std::memory_order_relaxed));
            received.fetch_add(1, std::memory_order_relaxed);
          }
        }
      }
      ::close(ep);
      reader_cpu[size_t(r)] = thread_cpu_seconds();
    });
  }

  const double start = now_s();
  std::string failed;
  for (int i = 0; i < total && failed.empty(); ++i) {
    sleep_until_s(start + double(i) / o.rate);
    sent_at[size_t(i)].store(now_s(), std::memory_order_relaxed);
    (void)engine::verify_signature(signed_event.id, signed_event.pubkey, signed_event.sig);
    if (::write(log, record.data(), record.size()) != ssize_t(record.size()) || ::fdatasync(log) != 0) {
      failed = std::strerror(errno);
      break;
    }
    announced.publish();
  }
  announced.finish();
  for (auto& t : senders) t.join();
  for (auto& t : readers) t.join();
  ::close(log);
  ::unlink(path.c_str());
  if (!failed.empty()) throw std::runtime_error("fan-out floor: the durable append failed: " + failed);

  FanoutFloorRun run;
  for (auto& part : parts) run.latencies.insert(run.latencies.end(), part.begin(), part.end());
  std::sort(run.latencies.begin(), run.latencies.end());
  for (double cpu : reader_cpu) run.reader_cpu_s += cpu;
  return run;
}

}  // namespace buzz::load
