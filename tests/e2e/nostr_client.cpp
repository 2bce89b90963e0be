// The end-to-end test client; see tests/e2e/nostr_client.h.
// Events are built and signed with the engine's own signer, so the bytes we
// send are exactly what engine/signature.h serializes. Relay replies are
// decoded with simdjson; an EVENT's object is re-minified and parsed with
// engine::parse_event_json (no verification: tests check ids themselves).
// Invariant: kept_ holds messages in arrival order, and every read goes
// through it first.
#include "tests/e2e/nostr_client.h"

#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <ctime>

#include "engine/base64.h"
#include "engine/canonical.h"
#include "engine/clock.h"
#include "engine/event_parse.h"

namespace buzz::test {
namespace {

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

std::string string_at(simdjson::dom::array a, size_t i) {
  std::string_view s;
  if (a.at(i).get_string().get(s)) return {};
  return std::string(s);
}

}  // namespace

// The server's clock (engine/clock.h), not time(): glibc's time() reads the coarse
// clock, a tick behind, so near a second boundary it could name the second before
// one the server already stamped.
uint64_t unix_now() { return engine::unix_now(); }

engine::Tag nip_oa_tag(const engine::Keypair& owner, const engine::Pubkey& agent, const std::string& conditions) {
  const std::string statement = "nostr:agent-auth:" + engine::to_hex(agent) + ":" + conditions;
  engine::Id digest;
  engine::sha256(statement.data(), statement.size(), digest.data());
  return {"auth", engine::to_hex(owner.pubkey), conditions, engine::to_hex(engine::sign_digest(owner, digest))};
}

std::string nip_oa_header(const engine::Tag& t) {
  return "[" + json_quote(t[0]) + "," + json_quote(t[1]) + "," + json_quote(t[2]) + "," + json_quote(t[3]) + "]";
}

engine::Event make_event(const engine::Keypair& key, uint16_t kind, std::string content,
                         std::vector<engine::Tag> tags, uint64_t created_at) {
  return engine::signed_event(key, kind, created_at != 0 ? created_at : unix_now(), std::move(tags), std::move(content));
}

engine::Event with_bad_signature(engine::Event e) {
  e.sig[0] ^= 0x01;
  e.raw = engine::serialize_event(e);
  return e;
}

std::string json_quote(std::string_view s) {
  std::string out;
  engine::append_json_string(out, s);
  return out;
}

RelayMessage parse_relay_message(std::string raw) {
  RelayMessage m;
  m.raw = std::move(raw);
  simdjson::dom::parser parser;
  simdjson::dom::array a;
  if (parser.parse(m.raw).get_array().get(a) || a.size() == 0) return m;
  m.type = string_at(a, 0);
  if (m.type == "NOTICE" || m.type == "AUTH") {
    m.text = string_at(a, 1);
  } else if (m.type == "OK") {
    m.id = string_at(a, 1);
    bool ok = false;
    if (!a.at(2).get_bool().get(ok)) m.accepted = ok;
    m.text = string_at(a, 3);
  } else if (m.type == "EVENT") {
    m.id = string_at(a, 1);
    simdjson::dom::element obj;
    if (!a.at(2).get(obj)) {
      auto parsed = engine::parse_event_json(simdjson::minify(obj));
      if (parsed) m.event = std::move(*parsed);
    }
  } else if (m.type == "EOSE") {
    m.id = string_at(a, 1);
  } else if (m.type == "CLOSED") {
    m.id = string_at(a, 1);
    m.text = string_at(a, 2);
  } else if (m.type == "COUNT") {
    m.id = string_at(a, 1);
    int64_t n = 0;
    if (!a.at(2)["count"].get_int64().get(n)) m.count = n;
  }
  return m;
}

std::unique_ptr<NostrClient> NostrClient::connect(const RelayProcess& relay, std::string* error) {
  std::unique_ptr<NostrClient> c(new NostrClient());
  c->relay_url_ = relay.relay_url();
  c->ws_ = client::WsClient::connect("127.0.0.1", relay.port(), error, "/", 5000, relay.tls());
  if (!c->ws_) return nullptr;
  auto first = c->next_message();
  if (!first || first->type != "AUTH") {
    *error = "expected [\"AUTH\", challenge] first, got: " + (first ? first->raw : "nothing");
    return nullptr;
  }
  c->challenge_ = first->text;
  return c;
}

std::unique_ptr<NostrClient> NostrClient::connect_authed(const RelayProcess& relay,
                                                         const engine::Keypair& key,
                                                         std::string* error) {
  auto c = connect(relay, error);
  if (!c) return nullptr;
  OkReply ok = c->authenticate(key);
  if (!ok.accepted) {
    *error = "AUTH refused: " + (ok.received ? ok.reason : "no OK");
    return nullptr;
  }
  return c;
}

OkReply NostrClient::authenticate(const engine::Keypair& key) {
  return send_auth(client::auth_event(key, relay_url_, challenge_));
}

OkReply NostrClient::send_auth(const engine::Event& auth_event) {
  if (!send("[\"AUTH\"," + auth_event.raw + "]")) return {};
  return wait_ok(auth_event.id_hex());
}

OkReply NostrClient::publish(const engine::Event& e, int timeout_ms) {
  if (!send("[\"EVENT\"," + e.raw + "]")) return {};
  return wait_ok(e.id_hex(), timeout_ms);
}

OkReply NostrClient::wait_ok(const std::string& event_id_hex, int timeout_ms) {
  auto m = wait_for([&](const RelayMessage& r) { return r.type == "OK" && r.id == event_id_hex; },
                    timeout_ms);
  if (!m) return {};
  return {true, m->accepted, m->text};
}

ReqResult NostrClient::req(const std::string& sub_id, const std::string& filters_json,
                           int timeout_ms) {
  ReqResult result;
  std::string msg = "[\"REQ\"," + json_quote(sub_id);
  if (!filters_json.empty()) msg += "," + filters_json;
  if (!send(msg + "]")) return result;
  const int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    const int left = static_cast<int>(deadline - now_ms());
    auto m = wait_for(
        [&](const RelayMessage& r) {
          return r.id == sub_id && (r.type == "EVENT" || r.type == "EOSE" || r.type == "CLOSED");
        },
        left > 0 ? left : 0);
    if (!m) return result;
    if (m->type == "EVENT") {
      result.events.push_back(std::move(m->event));
    } else if (m->type == "EOSE") {
      result.eose = true;
      return result;
    } else {
      result.closed = m->text;
      return result;
    }
  }
}

std::optional<RelayMessage> NostrClient::count(const std::string& sub_id,
                                               const std::string& filters_json, int timeout_ms) {
  std::string msg = "[\"COUNT\"," + json_quote(sub_id);
  if (!filters_json.empty()) msg += "," + filters_json;
  if (!send(msg + "]")) return std::nullopt;
  return wait_for(
      [&](const RelayMessage& r) {
        return r.id == sub_id && (r.type == "COUNT" || r.type == "CLOSED");
      },
      timeout_ms);
}

std::optional<RelayMessage> NostrClient::read_one(int timeout_ms) {
  auto text = ws_->recv(timeout_ms);
  if (!text) return std::nullopt;
  return parse_relay_message(std::move(*text));
}

std::optional<RelayMessage> NostrClient::next_message(int timeout_ms) {
  if (!kept_.empty()) {
    RelayMessage m = std::move(kept_.front());
    kept_.pop_front();
    return m;
  }
  return read_one(timeout_ms);
}

uint16_t NostrClient::close_code_within(int timeout_ms) {
  while (next_message(timeout_ms)) {
  }
  return ws_->closed() ? ws_->close_code() : 0;
}

std::optional<RelayMessage> NostrClient::wait_for(
    const std::function<bool(const RelayMessage&)>& want, int timeout_ms) {
  for (auto it = kept_.begin(); it != kept_.end(); ++it) {
    if (want(*it)) {
      RelayMessage m = std::move(*it);
      kept_.erase(it);
      return m;
    }
  }
  const int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    const int64_t left = deadline - now_ms();
    if (left < 0) return std::nullopt;
    auto m = read_one(static_cast<int>(left));
    if (!m) return std::nullopt;
    if (want(*m)) return m;
    kept_.push_back(std::move(*m));
  }
}

HttpReply http_get(uint16_t port, const std::string& path, const std::string& accept) {
  if (accept.empty()) return http_call(port, "GET", path);
  return http_call(port, "GET", path, {{"Accept", accept}});
}

int64_t metric_value(const std::string& body, const std::string& name) {
  size_t at = body.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stoll(body.substr(at + name.size() + 2));
}

std::string relay_self_pubkey(const RelayProcess& relay) {
  HttpReply info = http_get(relay.port(), "/info", "application/nostr+json");
  simdjson::dom::parser parser;
  std::string_view self;
  if (parser.parse(info.body)["self"].get_string().get(self)) return {};
  return std::string(self);
}

std::string nip98_header(const engine::Keypair& key, const std::string& url, const std::string& method,
                         const std::string& body, uint64_t created_at) {
  // Two identical requests in one second would sign the same event, which the
  // relay's replay cache refuses; a nonce makes each call its own request.
  static std::atomic<uint64_t> nonce{0};
  std::vector<engine::Tag> tags = {{"u", url}, {"method", method}, {"nonce", std::to_string(++nonce)}};
  if (!body.empty()) {
    uint8_t digest[32];
    engine::sha256(body.data(), body.size(), digest);
    tags.push_back({"payload", engine::to_hex(digest, sizeof digest)});
  }
  engine::Event e = make_event(key, 27235, "", std::move(tags), created_at);
  return "Nostr " + engine::encode_base64(e.raw);
}

}  // namespace buzz::test
