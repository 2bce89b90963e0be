// FrontDoor: the relay port's net::Service, and nothing else. One port serves
// three rooms; the door routes each arrival to the one that serves it:
//
//   WebSocket upgrade at "/"           -> Relay   (NIP-01 sessions)
//   WebSocket upgrade at "/huddle/…"   -> Huddle  (audio peers)
//   every other request                -> HttpApi (REST, bridge, NIP-11, media, the web client)
//
// and each open socket's frames and close to the room that opened it, told by
// its context's owner (server/common/socket_context.h). It holds no state of
// its own: the rooms own their sessions. An address NIP-86 blocked gets 403 at
// the first request or upgrade, before any room sees it.
//
// Loop thread, every callback: the connection's own loop.
#pragma once

#include "net/service.h"
#include "server/http/http_api.h"
#include "server/huddle/huddle.h"
#include "server/relay/relay.h"

namespace buzz::server {

class FrontDoor final : public net::Service {
 public:
  // `huddles` may be null: no endpoint at /huddle/.
  // `policy` may be null: no address is blocked.
  FrontDoor(Relay& relay, huddle::Huddle* huddles, HttpApi& http, const RelayPolicy* policy = nullptr)
      : relay_(relay), huddles_(huddles), http_(http), policy_(policy) {}

  net::HeadDecision on_request_head(net::Loop& loop, const net::HttpRequest& head) override;
  std::optional<net::HttpResponse> on_http(net::Loop& loop, net::Connection& conn, const net::HttpRequest& request) override;
  bool on_upgrade(net::Loop& loop, const net::HttpRequest& request, net::HttpResponse* refusal) override;
  void on_open(net::Loop& loop, net::Connection& conn, const net::HttpRequest& upgrade) override;
  void on_message(net::Loop& loop, net::Connection& conn, std::string_view text) override;
  void on_binary(net::Loop& loop, net::Connection& conn, std::string_view bytes) override;
  void on_close(net::Loop& loop, net::Connection& conn) override;
  void on_tick(net::Loop& loop) override;

 private:
  bool huddle_path(std::string_view path) const { return huddles_ && path.starts_with(huddle::Huddle::kPathPrefix); }
  // A socket a huddle opened (every other open socket is the relay's).
  static bool huddle_socket(const net::Connection& conn) {
    auto* ctx = static_cast<const SocketContext*>(conn.context());
    return ctx && ctx->owner == SocketContext::Owner::kHuddle;
  }

  bool blocked(const net::HttpRequest& request) const { return policy_ && policy_->address_blocked(request.peer); }

  Relay& relay_;
  huddle::Huddle* huddles_;
  HttpApi& http_;
  const RelayPolicy* policy_;
};

}  // namespace buzz::server
