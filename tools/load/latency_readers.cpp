// The latency readers; see latency_readers.h.
#include "tools/load/latency_readers.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "tools/load/delivery_reader.h"
#include "tools/load/load_client.h"
#include "tools/load/thread_cpu.h"

namespace buzz::load {

Deliveries read_deliveries(const std::vector<int>& sockets, const std::vector<std::string_view>& buffered,
                           const std::vector<std::atomic<double>>& sent_at, size_t expected, double deadline,
                           const std::vector<SSL*>& tls) {
  constexpr size_t kReaders = 2;
  std::atomic<size_t> received{0};
  std::vector<std::vector<double>> parts(kReaders);
  std::vector<double> cpu(kReaders);
  std::vector<std::thread> readers;
  for (size_t r = 0; r < kReaders; ++r) {
    readers.emplace_back([&, r] {
      const int ep = ::epoll_create1(EPOLL_CLOEXEC);
      std::vector<DeliveryReader> reading(sockets.size());
      for (size_t i = r; i < sockets.size(); i += kReaders) {
        if (!buffered.empty()) reading[i] = DeliveryReader(buffered[i]);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = i;
        ::epoll_ctl(ep, EPOLL_CTL_ADD, sockets[i], &ev);
      }
      epoll_event ready[256];
      std::vector<int> events;
      while (received.load(std::memory_order_relaxed) < expected && now_s() < deadline) {
        const int n = ::epoll_wait(ep, ready, 256, 200);
        for (int k = 0; k < n; ++k) {
          const size_t i = ready[k].data.u64;
          const double t = now_s();
          events.clear();
          // A socket its peer closed stays readable for good.
          if (!reading[i].drain(sockets[i], &events, tls.empty() ? nullptr : tls[i])) ::epoll_ctl(ep, EPOLL_CTL_DEL, sockets[i], nullptr);
          for (int event : events) {
            if (size_t(event) >= sent_at.size()) continue;
            parts[r].push_back(t - sent_at[size_t(event)].load(std::memory_order_relaxed));
            received.fetch_add(1, std::memory_order_relaxed);
          }
        }
      }
      ::close(ep);
      cpu[r] = thread_cpu_seconds();
    });
  }
  for (auto& t : readers) t.join();
  Deliveries out;
  for (size_t r = 0; r < kReaders; ++r) {
    out.latencies.insert(out.latencies.end(), parts[r].begin(), parts[r].end());
    out.reader_cpu_s += cpu[r];
  }
  std::sort(out.latencies.begin(), out.latencies.end());
  return out;
}

}  // namespace buzz::load
