// The latency readers' side of a live delivery; see delivery_reader.h.
#include "tools/load/delivery_reader.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "net/websocket.h"
#include "tools/client/ws_client.h"

namespace buzz::load {
namespace {

constexpr std::string_view kContent = "\"content\":\"";

// The decimal after "content":" in a delivery, or -1.
int event_number(std::string_view payload) {
  const size_t at = payload.find(kContent);
  if (at == std::string_view::npos) return -1;
  const char* first = payload.data() + at + kContent.size();
  int n = -1;
  std::from_chars(first, payload.data() + payload.size(), n);
  return n;
}

}  // namespace

bool DeliveryReader::drain(int fd, std::vector<int>* events, SSL* tls) {
  char chunk[16384];
  bool open = true;
  for (;;) {
    const ssize_t got = tls ? client::tls_recv(tls, chunk, sizeof chunk) : ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (got > 0) {
      pending_.append(chunk, size_t(got));
      continue;
    }
    open = got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    break;
  }
  size_t at = 0;
  while (at < pending_.size()) {
    net::ws::FrameHeader h{};
    const auto* p = reinterpret_cast<const uint8_t*>(pending_.data()) + at;
    const net::ws::HeaderStatus st = net::ws::parse_header(p, pending_.size() - at, &h);
    if (st == net::ws::HeaderStatus::kProtocolError || (st == net::ws::HeaderStatus::kOk && h.masked)) return false;
    if (st == net::ws::HeaderStatus::kNeedMore || pending_.size() - at - h.header_len < h.payload_len) break;
    if (h.opcode == net::ws::Opcode::kClose) return false;
    if (h.opcode == net::ws::Opcode::kText) {
      const int n = event_number(std::string_view(pending_).substr(at + h.header_len, size_t(h.payload_len)));
      if (n >= 0) events->push_back(n);
    }
    at += h.header_len + size_t(h.payload_len);
  }
  pending_.erase(0, at);
  return open;
}

std::string delivery_frame(int event, size_t frame_bytes) {
  // Payloads of 126 to 65,535 bytes take a 4-byte header.
  const size_t payload_len = std::clamp<size_t>(frame_bytes, 130, 65539) - 4;
  std::string payload = "[\"EVENT\",\"live\",{\"content\":\"" + std::to_string(event) + "\",\"pad\":\"";
  payload.append(payload_len - payload.size() - 3, 'x');
  payload += "\"}]";
  uint8_t header[net::ws::kMaxHeaderBytes];
  const size_t n = net::ws::encode_header(header, net::ws::Opcode::kText, payload.size());
  return std::string(reinterpret_cast<const char*>(header), n) + payload;
}

}  // namespace buzz::load
