// What TLS changes in a loop (LoopOptions::tls; net/tls.h, docs/tls.md). Both
// ways go through the connection's TlsSession and otherwise take the plaintext
// path unchanged: received records are decrypted into the loop's one scratch
// string and handed to consume(); queued frames are encrypted into one buffer
// per send, which loop.cpp writes as it writes plaintext frames. The queue's
// bounds count plaintext (OutFrame::size), as for a plaintext connection; a
// frame's bytes leave the count when the write carrying its last record ends.
#include <algorithm>
#include <cstring>

#include "net/loop.h"

namespace buzz::net {
namespace {

constexpr size_t kRecordBytes = 16384;      // TLS's largest record: frames are gathered up to it
constexpr size_t kSendBatchBytes = 256 * 1024;  // ciphertext per write; a larger response goes in several

}  // namespace

bool Loop::consume_tls(Connection& c, const char* data, size_t len) {
  Connection::TlsState& t = *c.tls_;
  size_t n = 0;
  const bool open = t.session.receive(data, len, &tls_plain_, &n);
  // Handshake messages (or an alert) to answer with.
  if (t.session.has_output() && !c.dirty_ && !c.sending_) {
    c.dirty_ = true;
    dirty_.push_back(&c);
  }
  if (n && !consume(c, tls_plain_.data(), n)) return false;
  return open;
}

void Loop::flush_tls(Connection& c) {
  Connection::TlsState& t = *c.tls_;
  const bool nothing_queued = c.pending_.empty() && t.rest.head.empty();
  if (nothing_queued && c.close_after_flush_) t.session.close_notify();
  if (!c.send_) c.send_ = std::make_unique<Connection::SendState>();
  Connection::SendState& s = *c.send_;
  s.bytes = 0;
  std::string& plain = tls_staging_;
  plain.clear();
  bool ok = true;
  size_t taken = 0;  // frames of pending_ moved out
  auto seal = [&] {
    ok = ok && (plain.empty() || t.session.send(plain.data(), plain.size()));
    plain.clear();
  };
  for (size_t sealed = 0; ok && sealed < kSendBatchBytes;) {
    if (t.rest.head.empty()) {
      if (taken == c.pending_.size()) break;
      t.rest = std::move(c.pending_[taken++]);
      t.rest_done = 0;
      c.heartbeats_queued_ -= t.rest.heartbeat;
      c.lossy_queued_ -= t.rest.lossy;
    }
    // The frame's three parts as one run of bytes, from rest_done on.
    const std::string_view parts[] = {t.rest.head, t.rest.shared ? std::string_view(*t.rest.shared) : std::string_view(),
                                      t.rest.tail};
    size_t skip = t.rest_done;
    for (std::string_view part : parts) {
      if (skip >= part.size()) {
        skip -= part.size();
        continue;
      }
      part.remove_prefix(skip);
      skip = 0;
      const size_t n = std::min(part.size(), kRecordBytes - plain.size());
      plain.append(part.data(), n);
      t.rest_done += n;
      if (plain.size() == kRecordBytes) {
        sealed += plain.size();
        seal();
        break;  // the rest of this frame, if any, in the next pass
      }
    }
    if (t.rest_done == t.rest.size()) {
      s.bytes += t.rest.size();
      t.rest = OutFrame();
    }
  }
  seal();
  c.pending_.erase(c.pending_.begin(), c.pending_.begin() + long(taken));
  if (c.pending_.empty()) std::vector<OutFrame>().swap(c.pending_);
  if (!ok) return destroy(c);  // a frame before the handshake ended (a probe's refusal): nothing can carry it
  s.cipher = t.session.take_output();
  if (s.cipher.empty()) {
    unqueue_bytes(c, s.bytes);  // frames of no bytes
    c.send_.reset();
    if (nothing_queued && c.close_after_flush_) end_after_flush(c);
    return;
  }
  s.iov.assign(1, iovec{s.cipher.data(), s.cipher.size()});
  s.first = 0;
  write_out(c);
}

}  // namespace buzz::net
