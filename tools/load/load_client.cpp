// What every scenario says to the relay; see load_client.h.
#include "tools/load/load_client.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "engine/clock.h"
#include "engine/json_text.h"
#include "tools/client/http_client.h"
#include "tools/client/relay_auth.h"

namespace buzz::load {

std::unique_ptr<client::WsClient> connect_authed(const ServerProcess& server, const engine::Keypair& key) {
  std::string err;
  auto c = client::WsClient::connect("127.0.0.1", server.port(), &err, "/", 10000, server.tls());
  if (!c) throw std::runtime_error("connect: " + err);
  auto first = c->recv(5000);
  if (!first || first->rfind("[\"AUTH\",\"", 0) != 0) throw std::runtime_error("no AUTH challenge");
  std::string challenge = first->substr(9, 64);
  c->send_text("[\"AUTH\"," + client::auth_event(key, server.url(), challenge).raw + "]");
  auto ok = c->recv(5000);
  if (!ok || ok->find("true") == std::string::npos) throw std::runtime_error("AUTH refused: " + ok.value_or("timeout"));
  return c;
}

engine::Event note(const engine::Keypair& key, std::string content, std::vector<engine::Tag> tags, uint16_t kind) {
  return engine::signed_event(key, kind, engine::unix_now(), std::move(tags), std::move(content));
}

std::string channel_uuid(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "%08x-0000-4000-8000-%012x", unsigned(getpid()), unsigned(i + 1));
  return id;
}

double metric_value(const std::string& page, const std::string& name) {
  const size_t at = page.find("\n" + name + " ");
  return at == std::string::npos ? 0.0 : std::strtod(page.c_str() + at + name.size() + 2, nullptr);
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string mint_bearer(const ServerProcess& server, const engine::Keypair& key, const std::string& scope) {
  const std::string body =
      json_object({{"name", json_string("load")}, {"scopes", json_string_array(std::vector{scope})}});
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/api/tokens";
  client::HttpClient http(server.port());
  const client::HttpReply minted = http.call("POST", "/api/tokens", {{"Authorization", client::nip98_authorization(key, url, "POST", body)}}, body);
  const size_t at = minted.body.find("\"token\":\"");
  if (minted.status != 201 || at == std::string::npos) throw std::runtime_error("mint failed: " + minted.body);
  return "Bearer " + minted.body.substr(at + 9, minted.body.find('"', at + 9) - (at + 9));
}

void send_all(client::WsClient& c, const std::vector<std::string>& frames, size_t window) {
  size_t sent = 0, acked = 0;
  while (acked < frames.size()) {
    while (sent < frames.size() && sent - acked < window) c.send_text(frames[sent++]);
    auto m = c.recv(10000);
    if (!m) throw std::runtime_error("timeout waiting for OK");
    if (m->rfind("[\"OK\"", 0) != 0) continue;
    if (m->find("\",true,") == std::string::npos) throw std::runtime_error("refused: " + *m);
    ++acked;
  }
}

void sleep_until_s(double due) {
  using Clock = std::chrono::steady_clock;
  std::this_thread::sleep_until(Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(due))));
}

double percentile_ms(const std::vector<double>& sorted, double q) {
  return sorted.empty() ? 0 : sorted[size_t(q * double(sorted.size() - 1))] * 1e3;
}

size_t query(client::WsClient& c, const std::string& filter, double* eose_at) {
  c.send_text("[\"REQ\",\"q\"," + filter + "]");
  size_t results = 0;
  while (auto m = c.recv(10000)) {
    if (m->rfind("[\"CLOSED\"", 0) == 0) throw std::runtime_error("query refused: " + *m);
    if (m->rfind("[\"EOSE\"", 0) != 0) {
      ++results;
      continue;
    }
    if (eose_at) *eose_at = now_s();
    // Live events of the subscription may still come before the CLOSED.
    c.send_text(R"(["CLOSE","q"])");
    while (auto closed = c.recv(5000)) {
      if (closed->rfind("[\"CLOSED\"", 0) == 0) return results;
    }
    throw std::runtime_error("no CLOSED after CLOSE: " + filter);
  }
  throw std::runtime_error("query timed out: " + filter);
}

}  // namespace buzz::load
