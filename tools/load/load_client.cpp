// What every scenario says to the relay; see load_client.h.
#include "tools/load/load_client.h"

#include <stdexcept>

#include "engine/clock.h"

namespace buzz::load {

std::unique_ptr<client::WsClient> connect_authed(const ServerProcess& server, const engine::Keypair& key) {
  std::string err;
  auto c = client::WsClient::connect("127.0.0.1", server.port(), &err, "/", 10000);
  if (!c) throw std::runtime_error("connect: " + err);
  auto first = c->recv(5000);
  if (!first || first->rfind("[\"AUTH\",\"", 0) != 0) throw std::runtime_error("no AUTH challenge");
  std::string challenge = first->substr(9, 64);
  engine::Event auth;
  auth.kind = 22242;
  auth.created_at = engine::unix_now();
  auth.tags = {{"relay", server.url()}, {"challenge", challenge}};
  engine::sign_event(key, &auth);
  c->send_text("[\"AUTH\"," + auth.raw + "]");
  auto ok = c->recv(5000);
  if (!ok || ok->find("true") == std::string::npos) throw std::runtime_error("AUTH refused: " + ok.value_or("timeout"));
  return c;
}

engine::Event note(const engine::Keypair& key, std::string content, std::vector<engine::Tag> tags, uint16_t kind) {
  engine::Event e;
  e.kind = kind;
  e.created_at = engine::unix_now();
  e.tags = std::move(tags);
  e.content = std::move(content);
  engine::sign_event(key, &e);
  return e;
}

}  // namespace buzz::load
