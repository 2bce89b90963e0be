// Service: the one seam between net/ and the application above it.
//
// The loop hands up only whole things: a parsed HTTP request, a complete
// WebSocket text message, an open or a close. Every callback runs on the loop
// thread that owns the connection and must not block.
#pragma once

#include <optional>
#include <string_view>

#include "net/body_spool.h"
#include "net/http.h"
#include "net/websocket.h"

namespace buzz::net {

class Loop;
class Connection;

// What the application makes of a request's head, before its body is read.
struct HeadDecision {
  std::optional<size_t> max_body;       // this request's body limit; unset: LoopOptions::max_http_body
  std::optional<HttpResponse> refusal;  // answered at once: the body is never buffered, the connection closes
  // Stream the body to a file instead of buffering it (body_spool.h): on_http
  // then gets HttpRequest::spooled. max_body is unused; spool->max_bytes rules.
  std::optional<SpoolSpec> spool;
};

class Service {
 public:
  virtual ~Service() = default;

  // The head of a plain HTTP request (not an upgrade), once per request and
  // before any of its body is buffered: a large upload can be refused, or
  // allowed more than the default limit, here. `head.body` is empty.
  virtual HeadDecision on_request_head(Loop& /*loop*/, const HttpRequest& /*head*/) { return {}; }

  // A plain HTTP request (not an upgrade). The response is sent as returned;
  // nullopt means "answered later" with Loop::respond, and the connection reads
  // no further request until then (HTTP/1.1 answers in order).
  virtual std::optional<HttpResponse> on_http(Loop& loop, Connection& conn, const HttpRequest& request) = 0;

  // A WebSocket upgrade request. Return false and fill `refusal` to refuse it.
  virtual bool on_upgrade(Loop& loop, const HttpRequest& request, HttpResponse* refusal) = 0;

  // The upgrade was answered with 101; the connection now speaks WebSocket.
  // `upgrade` is the request on_upgrade accepted (its path names the endpoint).
  virtual void on_open(Loop& loop, Connection& conn, const HttpRequest& upgrade) = 0;

  // One complete text message.
  virtual void on_message(Loop& loop, Connection& conn, std::string_view text) = 0;

  // One complete binary message. By default it is read as text when it is
  // UTF-8 and dropped without a reply when it is not (docs/reference/protocol.md §3.1); an
  // endpoint that carries bytes (the huddle's audio) takes it as it is.
  virtual void on_binary(Loop& loop, Connection& conn, std::string_view bytes) {
    if (ws::is_valid_utf8(bytes)) on_message(loop, conn, bytes);
  }

  // The connection is gone (after on_open only). Drop every reference to it.
  virtual void on_close(Loop& loop, Connection& conn) = 0;

  // Once a second on every loop.
  virtual void on_tick(Loop& /*loop*/) {}
};

}  // namespace buzz::net
