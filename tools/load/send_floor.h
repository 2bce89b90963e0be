// The kernel's floor under live fan-out: one send() of a delivery-sized frame
// to each of N loopback TCP connections in turn while another thread drains
// them through epoll, as the subscribers do. Over loopback the receiving half
// (TCP input, waking the reader) runs inside the sender's system call, so the
// sending thread's CPU per send is the least a relay can pay per delivery.
// `buzz-load fanout` measures it over as many connections as subscribers, in
// the same run; BM_LoopbackSend (bench/net/) over 256. Over 1,000 the sockets
// no longer fit the caches and the floor is about a third higher (issue 20 §3).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

namespace buzz::load {

// `n` connected loopback TCP pairs: `senders` (accepted, TCP_NODELAY, as the
// relay's sockets) and `receivers` (the clients' ends). Throws
// std::runtime_error when the machine will not give that many.
struct LoopbackPairs {
  std::vector<int> senders, receivers;
  explicit LoopbackPairs(int n);
  ~LoopbackPairs();
  LoopbackPairs(const LoopbackPairs&) = delete;
  LoopbackPairs& operator=(const LoopbackPairs&) = delete;
};

class LoopbackFloor {
 public:
  // `connections` connected pairs (the sending side TCP_NODELAY, as the
  // relay's sockets) and the reader draining them; throws std::runtime_error.
  LoopbackFloor(int connections, size_t frame_bytes);
  ~LoopbackFloor();
  LoopbackFloor(const LoopbackFloor&) = delete;
  LoopbackFloor& operator=(const LoopbackFloor&) = delete;

  // One frame to the next connection in turn; false on a short send.
  bool send_next();

 private:
  LoopbackPairs pairs_;
  std::string frame_;
  size_t next_ = 0;
  std::atomic<bool> done_{false};
  std::thread reader_;
};

// CPU microseconds of the sending thread per send(), over `sends` sends.
double loopback_send_floor_us(int connections, size_t frame_bytes = 400, int sends = 200000);

}  // namespace buzz::load
