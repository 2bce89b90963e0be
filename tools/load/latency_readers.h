// The latency readers of `buzz-load fanout` (and its channels scenario) and of
// the fan-out floor: one function for both, so the relay and its floor are read
// alike. Two threads, each with half of the sockets in an epoll set, take a
// timestamp per ready socket and read it with a DeliveryReader
// (delivery_reader.h). They share the cores with what they measure, so their
// own CPU is reported beside the latencies.
#pragma once

#include <openssl/types.h>

#include <atomic>
#include <cstddef>
#include <string_view>
#include <vector>

namespace buzz::load {

struct Deliveries {
  std::vector<double> latencies;  // publish → arrival, seconds, sorted
  double reader_cpu_s = 0;        // the two reader threads' own CPU
};

// Reads deliveries off `sockets` (non-blocking, past their WebSocket upgrade)
// until `expected` arrived or `deadline` (now_s()) passed. A delivery's content
// is its index into `sent_at`. `buffered`, empty or one per socket, holds what
// was already read off each socket and not yet parsed; `tls`, empty or one per
// socket, the TLS session to read each through (null: none).
Deliveries read_deliveries(const std::vector<int>& sockets, const std::vector<std::string_view>& buffered,
                           const std::vector<std::atomic<double>>& sent_at, size_t expected, double deadline,
                           const std::vector<SSL*>& tls = {});

}  // namespace buzz::load
