// AddressCounts: connections per peer address that the application has not
// vouched for yet (a WebSocket session before its AUTH, any plain HTTP
// connection), shared by every loop. Each loop adds a connection at accept and
// takes it out at Loop::vouch or when the connection goes; past the cap an
// accept is refused, so one address cannot hold the whole connection cap with
// sockets that never authenticate (docs/limits.md, "Connections").
// Any thread; accepts and closes are far off the per-message paths, so one
// mutex is enough.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace buzz::net {

class AddressCounts {
 public:
  // max_per_address: 0 = no cap (nothing is counted).
  explicit AddressCounts(uint32_t max_per_address) : max_(max_per_address) {}

  uint32_t max_per_address() const { return max_; }
  // Counts one more connection from `addr` (IPv4, network order); false, and
  // nothing counted, when it already has max_per_address.
  bool try_add(uint32_t addr);
  void remove(uint32_t addr);

 private:
  const uint32_t max_;
  std::mutex mu_;
  std::unordered_map<uint32_t, uint32_t> counts_;
};

}  // namespace buzz::net
