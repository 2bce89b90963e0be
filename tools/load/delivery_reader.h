// One socket's side of live deliveries, for the latency readers of
// `buzz-load fanout` and of its floor (latency_readers.h): both receive
// WebSocket text frames whose "content" is the event's number, read here from
// a socket past its upgrade without a copy per frame. Before the two shared
// it, reading the relay cost the readers 8.1-8.9 µs a delivery against the
// floor's 6.1-6.4 (docs/performance.md, "Live fan-out").
#pragma once

#include <openssl/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace buzz::load {

class DeliveryReader {
 public:
  // `buffered`: bytes already read off the socket and not yet parsed (a
  // client::WsClient's, after its subscription).
  explicit DeliveryReader(std::string_view buffered = {}) : pending_(buffered) {}

  // Reads what `fd` (non-blocking) holds now and appends the number of each
  // whole text frame to `events`; other frames (a heartbeat ping) are skipped.
  // False once the peer closed or sent what is not a server's WebSocket frame.
  // With `tls`, reads through that session (client::tls_recv).
  bool drain(int fd, std::vector<int>* events, SSL* tls = nullptr);

 private:
  std::string pending_;
};

// A server's text frame of `frame_bytes` (header included; 130 to 65,539)
// whose "content" is `event`, as the floor sends it.
std::string delivery_frame(int event, size_t frame_bytes);

}  // namespace buzz::load
