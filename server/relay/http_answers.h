// HttpAnswers: where the store writer's answers to plain HTTP requests go. A
// REST write (POST /api/events, the bridge's POST /events, a DM operation) is
// submitted through the relay's ingest and answered once its batch is durable;
// the relay, which receives every batch's outcome, hands those answers to the
// HTTP side (server/http/ implements this) on the loop that owns the request.
//
// Loop thread, every call: the request's own loop.
#pragma once

#include "engine/hex.h"
#include "net/loop.h"
#include "server/pipeline/store_writer.h"
#include "server/pipeline/verdict.h"

namespace buzz::server {

class HttpAnswers {
 public:
  virtual ~HttpAnswers() = default;
  // The verdict on an event a request submitted (POST /api/events, the bridge's POST /events).
  virtual void answer_event(net::Loop& loop, net::ConnId to, const engine::Id& id, const Verdict& verdict) = 0;
  // The outcome of a DM operation a request asked for.
  virtual void answer_dm(net::Loop& loop, const DmReply& reply) = 0;
};

}  // namespace buzz::server
