// The kernel's floor under live fan-out, measured in the load run itself: one
// send() of a delivery-sized frame to each of N loopback TCP connections in turn
// while another thread drains them through epoll, as the subscribers do. Over
// loopback the receiving half (TCP input, waking the reader) runs inside the
// sender's system call, so the sending thread's CPU per send is the least a
// relay can pay per delivery. bench/net/loopback_send_bench.cpp measures the
// same on 256 connections; over 1,000 the sockets no longer fit the caches and
// the floor is about a third higher (issue 20 §3).
#pragma once

#include <cstddef>

namespace buzz::load {

// CPU microseconds of the sending thread per send(), over `connections`
// loopback pairs and `sends` sends of `frame_bytes` each.
double loopback_send_floor_us(int connections, size_t frame_bytes = 400, int sends = 200000);

}  // namespace buzz::load
