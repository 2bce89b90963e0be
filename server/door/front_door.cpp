// The front door's routing; see front_door.h.
#include "server/door/front_door.h"

namespace buzz::server {
namespace {

net::HttpResponse blocked_address() { return net::HttpResponse::json(403, R"({"error":"blocked: address is blocked"})"); }

}  // namespace

net::HeadDecision FrontDoor::on_request_head(net::Loop& loop, const net::HttpRequest& head) {
  if (blocked(head)) return {.max_body = std::nullopt, .refusal = blocked_address(), .spool = std::nullopt};
  return http_.on_request_head(loop, head);
}

std::optional<net::HttpResponse> FrontDoor::on_http(net::Loop& loop, net::Connection& conn,
                                                    const net::HttpRequest& request) {
  return http_.on_http(loop, conn, request);
}

bool FrontDoor::on_upgrade(net::Loop& loop, const net::HttpRequest& request, net::HttpResponse* refusal) {
  if (blocked(request)) {
    *refusal = blocked_address();
    return false;
  }
  if (request.path == "/") return true;
  if (huddle_path(request.path)) return huddles_->on_upgrade(loop, request, refusal);
  *refusal = net::HttpResponse::json(404, R"({"error":"no WebSocket endpoint at this path; the relay is at /"})");
  return false;
}

void FrontDoor::on_open(net::Loop& loop, net::Connection& conn, const net::HttpRequest& upgrade) {
  if (huddle_path(upgrade.path)) return huddles_->on_open(loop, conn, upgrade);
  relay_.on_open(loop, conn);
}

void FrontDoor::on_message(net::Loop& loop, net::Connection& conn, std::string_view text) {
  if (huddle_socket(conn)) return huddles_->on_message(loop, conn, text);
  relay_.on_message(loop, conn, text);
}

void FrontDoor::on_binary(net::Loop& loop, net::Connection& conn, std::string_view bytes) {
  if (huddle_socket(conn)) return huddles_->on_binary(loop, conn, bytes);
  net::Service::on_binary(loop, conn, bytes);  // the relay reads UTF-8 binary frames as text (docs/reference/protocol.md §3.1)
}

void FrontDoor::on_close(net::Loop& loop, net::Connection& conn) {
  if (huddle_socket(conn)) return huddles_->on_close(loop, conn);
  relay_.on_close(loop, conn);
}

void FrontDoor::on_tick(net::Loop& loop) {
  if (huddles_) huddles_->on_tick(loop);
  relay_.on_tick(loop);
}

}  // namespace buzz::server
