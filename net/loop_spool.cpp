// Request bodies streamed to a file instead of buffered (body_spool.h): the
// loop's side. The head was shown to the service, which asked for a spool;
// from then on the body's bytes are consumed as they arrive (not kept in
// inbuf_ until the request is whole), cut out of the chunked coding if need
// be, counted against the limit, and handed to the loop's SpoolWriter in
// batches. Once the writer has the whole body on disk, hashed, the request
// goes to the service like any other, with HttpRequest::spooled.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "net/loop.h"

namespace buzz::net {

// Hands a spool (and so its file) to its writer, which lets go of it after
// what is queued: removing a file of hundreds of megabytes can keep the
// filesystem busy, and the loop must not wait for it. A write of nothing to a
// cancelled spool only carries the reference; the caller drops its own at
// once, so the writer's is nearly always the last.
void let_writer_remove(SpoolWriter& writer, std::shared_ptr<BodySpool> spool) {
  if (!spool) return;
  spool->cancelled = true;
  writer.write(spool, {}, false);
}

void let_writer_remove(SpoolWriter& writer, std::shared_ptr<SpooledBody> file) {
  if (!file) return;
  auto holder = std::make_shared<BodySpool>(std::move(file), ConnId{}, SpoolSpec{});
  let_writer_remove(writer, std::move(holder));
}

size_t Loop::start_spool(Connection& c, Connection::PendingRequest&& pending, SpoolSpec spec, size_t data_size) {
  HttpRequest& req = pending.request;
  // A declared length over the limit is refused before any body byte is read.
  if (!req.chunked && req.content_length > spec.max_bytes) {
    send_response(c, spec.too_large(req.content_length, spec.max_bytes), false);
    close(c);
    return data_size;
  }
  std::shared_ptr<SpooledBody> file = create_spool_file(spec.dir);
  if (!file) {
    send_response(c, HttpResponse::json(500, R"({"error":"internal error"})"), false);
    close(c);
    return data_size;
  }
  if (!spool_writer_) spool_writer_ = std::make_unique<SpoolWriter>(*this);
  file->hold(std::move(spec.hold));
  auto spool = std::make_shared<BodySpool>(std::move(file), c.id_, std::move(spec));
  spool->chunked = req.chunked;
  spool->started_tick = tick_count_;
  spool->pace_tick = tick_count_;
  if (req.expects_continue()) queue_raw(c, "HTTP/1.1 100 Continue\r\n\r\n");
  const size_t head_bytes = pending.head_bytes;
  const bool empty = !req.chunked && req.content_length == 0;
  pending.spool = spool;
  c.request_ = std::make_unique<Connection::PendingRequest>(std::move(pending));
  c.body_bytes_at_visit_ = 0;
  if (empty) {
    spool->finishing = true;
    pause(c, Connection::kPausedBySpool);
    spool_writer_->write(spool, {}, true);
  }
  return head_bytes;
}

size_t Loop::refuse_spooled(Connection& c, HttpResponse response, size_t data_size) {
  let_writer_remove(*spool_writer_, std::move(c.request_->spool));
  c.request_.reset();
  send_response(c, std::move(response), false);
  close(c);
  return data_size;
}

size_t Loop::consume_spooled(Connection& c, std::string_view data) {
  const std::shared_ptr<BodySpool>& spool = c.request_->spool;
  BodySpool& s = *spool;
  if (s.finishing) return 0;  // a pipelined request waits for this one's answer
  size_t used = 0;
  bool last = false;
  const size_t before = s.batch.size();
  if (s.chunked) {
    ChunkedDecoder::Status st = s.decoder.feed(data, &used, &s.batch);
    if (st == ChunkedDecoder::Status::kError) {
      return refuse_spooled(c, HttpResponse::json(400, R"({"error":"malformed chunked request body"})"), data.size());
    }
    last = st == ChunkedDecoder::Status::kDone;
  } else {
    used = size_t(std::min<uint64_t>(data.size(), c.request_->request.content_length - s.received - s.batch.size()));
    s.batch.append(data.data(), used);
    last = s.received + s.batch.size() == c.request_->request.content_length;
  }
  // A chunked body has no declared length: it is cut off once it passes the limit.
  if (s.received + s.batch.size() > s.spec.max_bytes) {
    return refuse_spooled(c, s.spec.too_large(s.received + s.batch.size(), s.spec.max_bytes), data.size());
  }
  if (s.batch.size() != before) c.silent_intervals_ = 0;
  if (last || s.batch.size() >= kSpoolBatchBytes) {
    s.received += s.batch.size();
    std::string batch;
    batch.swap(s.batch);
    spool_writer_->write(spool, std::move(batch), last);
  }
  if (last) {
    // Nothing more is read until the service has the body and answers it.
    s.finishing = true;
    pause(c, Connection::kPausedBySpool);
  } else if (s.in_flight.load() > kSpoolHighWater) {
    // The disk is behind: stop reading until the writer catches up (TCP
    // flow control then holds the client). It may have caught up already.
    s.paused.store(true);
    if (s.in_flight.load() >= kSpoolLowWater || !s.paused.exchange(false)) pause(c, Connection::kPausedBySpool);
  }
  return used;
}

bool Loop::keeps_pace(const Connection& c, BodySpool& s) {
  if (!s.spec.min_bytes_per_sec) return true;
  const uint64_t arrived = s.received + s.batch.size();
  // A body the loop stopped reading (its disk is behind) is not judged: its
  // interval starts again.
  if (c.read_paused_) {
    s.pace_tick = tick_count_;
    s.pace_bytes = arrived;
    return true;
  }
  // The first visit may come at any point of the first interval: only whole
  // intervals are judged, so a body that has only just begun is not.
  const uint32_t elapsed = tick_count_ - s.pace_tick;
  if (elapsed < wheel_.size()) return true;
  if (arrived - s.pace_bytes < uint64_t(s.spec.min_bytes_per_sec) * elapsed) return false;
  s.pace_tick = tick_count_;
  s.pace_bytes = arrived;
  return true;
}

void Loop::on_spool_drained(ConnId id) {
  Connection* c = find(id);
  if (c && c->request_ && c->request_->spool && !c->request_->spool->finishing) resume(*c, Connection::kPausedBySpool);
}

void Loop::on_spool_done(const std::shared_ptr<BodySpool>& spool) {
  Connection* c = find(spool->conn);
  if (!c || !c->request_ || c->request_->spool != spool) {
    // The connection is gone, and its request with it: the file goes on the writer.
    let_writer_remove(*spool_writer_, std::move(spool->file));
    return;
  }
  HttpRequest whole = std::move(c->request_->request);
  c->request_.reset();
  c->silent_intervals_ = 0;
  c->body_bytes_at_visit_ = 0;
  // The writer is done with the spool; its file is the request's now, and
  // whatever the service does not keep goes back to the writer to be removed.
  whole.spooled = std::move(spool->file);
  if (spool->failed) {
    send_response(*c, HttpResponse::json(500, R"({"error":"internal error"})"), false);
    close(*c);
  } else {
    answer_http(*c, whole);
  }
  let_writer_remove(*spool_writer_, std::move(whole.spooled));
  resume(*c, Connection::kPausedBySpool);
}

}  // namespace buzz::net
