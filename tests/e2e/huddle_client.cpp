// The huddle test client; see huddle_client.h.
#include "tests/e2e/huddle_client.h"

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "tests/e2e/nostr_client.h"

namespace buzz::test {

std::unique_ptr<HuddleClient> HuddleClient::connect(const RelayProcess& relay, const std::string& channel,
                                                    std::string* error) {
  std::unique_ptr<HuddleClient> c(new HuddleClient());
  c->ws_ = client::WsClient::connect("127.0.0.1", relay.port(), error, "/huddle/" + channel + "/audio");
  if (!c->ws_) return nullptr;
  c->relay_url_ = relay.relay_url();
  auto first = c->ws_->recv(5000);
  if (!first || json_field(*first, "type") != "challenge") {
    *error = "no challenge: " + first.value_or("(nothing)");
    return nullptr;
  }
  c->challenge_ = json_field(*first, "challenge");
  return c;
}

bool HuddleClient::send_auth(const engine::Keypair& key, const HuddleAuth& auth) {
  engine::Event e = client::auth_event(key, auth.relay_url.value_or(relay_url_), auth.challenge.value_or(challenge_), {},
                                       auth.created_at.value_or(unix_now()));
  std::string msg = R"({"type":"auth","event":)" + e.raw;
  if (auth.parent) msg += R"(,"parent_channel_id":)" + json_quote(*auth.parent);
  if (auth.version) msg += R"(,"protocol_version":)" + std::to_string(*auth.version);
  return ws_->send_text(msg + "}");
}

std::optional<HuddleMessage> HuddleClient::read_one(int timeout_ms) {
  // The relay never fragments a message, so frames are whole messages; Pings are answered here.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    auto f = ws_->recv_frame(int(std::max<int64_t>(0, left.count())));
    if (!f) return std::nullopt;
    switch (f->opcode) {
      case net::ws::Opcode::kPing: ws_->send_frame(net::ws::Opcode::kPong, f->payload); continue;
      case net::ws::Opcode::kText: return HuddleMessage{false, std::move(f->payload)};
      case net::ws::Opcode::kBinary: return HuddleMessage{true, std::move(f->payload)};
      case net::ws::Opcode::kClose: return std::nullopt;
      default: continue;
    }
  }
}

std::optional<HuddleMessage> HuddleClient::next(int timeout_ms) {
  if (!kept_.empty()) {
    HuddleMessage m = std::move(kept_.front());
    kept_.pop_front();
    return m;
  }
  return read_one(timeout_ms);
}

namespace {

template <class Want>
std::optional<HuddleMessage> wait_for(std::deque<HuddleMessage>& kept, const Want& want, int timeout_ms,
                                      const std::function<std::optional<HuddleMessage>(int)>& read) {
  for (auto it = kept.begin(); it != kept.end(); ++it) {
    if (want(*it)) {
      HuddleMessage m = std::move(*it);
      kept.erase(it);
      return m;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto m = read(int(left.count()));
    if (!m) return std::nullopt;
    if (want(*m)) return m;
    kept.push_back(std::move(*m));
  }
}

}  // namespace

std::optional<std::string> HuddleClient::wait_type(const std::string& type, int timeout_ms) {
  auto m = wait_for(kept_, [&](const HuddleMessage& h) { return !h.binary && json_field(h.data, "type") == type; },
                    timeout_ms, [this](int t) { return read_one(t); });
  if (!m) return std::nullopt;
  return m->data;
}

std::optional<std::string> HuddleClient::wait_binary(int timeout_ms) {
  auto m = wait_for(kept_, [](const HuddleMessage& h) { return h.binary; }, timeout_ms,
                    [this](int t) { return read_one(t); });
  if (!m) return std::nullopt;
  return m->data;
}

std::optional<std::string> HuddleClient::admission(const std::string& pubkey_hex, int timeout_ms) {
  auto m = wait_for(kept_, [&](const HuddleMessage& h) {
    if (h.binary) return false;
    const std::string type = json_field(h.data, "type");
    return type == "error" || (type == "joined" && json_field(h.data, "pubkey") == pubkey_hex);
  }, timeout_ms, [this](int t) { return read_one(t); });
  if (!m) return std::nullopt;
  return m->data;
}

std::string json_field(const std::string& json, const char* key) {
  simdjson::dom::parser parser;
  simdjson::dom::element v;
  if (parser.parse(json)[key].get(v)) return {};
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  int64_t n = 0;
  if (!v.get_int64().get(n)) return std::to_string(n);
  return simdjson::minify(v);
}

std::string v2_frame(uint16_t seq, uint32_t ts_48k, int8_t level_dbov, uint8_t flags, const std::string& opus) {
  std::string f;
  f.push_back(char(seq >> 8));
  f.push_back(char(seq));
  for (int shift = 24; shift >= 0; shift -= 8) f.push_back(char(ts_48k >> shift));
  f.push_back(char(level_dbov));
  f.push_back(char(flags));
  return f + opus;
}

}  // namespace buzz::test
