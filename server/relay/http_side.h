// HttpSide: the plain-HTTP half of the relay's port. The relay owns the
// connections and takes the WebSocket upgrades at "/"; every other request
// goes to the HttpSide (server/http/ implements it), and so do the store
// writer's answers to the requests it deferred.
//
// Loop thread, every call: the connection's own loop.
#pragma once

#include <optional>

#include "engine/hex.h"
#include "net/loop.h"
#include "net/service.h"
#include "server/relay/store_writer.h"
#include "server/relay/verdict.h"

namespace buzz::server {

class HttpSide {
 public:
  virtual ~HttpSide() = default;
  virtual net::HeadDecision on_request_head(net::Loop& loop, const net::HttpRequest& head) = 0;
  // nullopt: answered later, through one of the two calls below.
  virtual std::optional<net::HttpResponse> on_http(net::Loop& loop, net::Connection& conn,
                                                   const net::HttpRequest& request) = 0;
  // The verdict on an event a request submitted (POST /api/events, the bridge's POST /events).
  virtual void answer_event(net::Loop& loop, net::ConnId to, const engine::Id& id, const Verdict& verdict) = 0;
  // The outcome of a DM operation a request asked for.
  virtual void answer_dm(net::Loop& loop, const DmReply& reply) = 0;
};

}  // namespace buzz::server
