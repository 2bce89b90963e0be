// ProxyService, the client side: NIP-11 and the admin API over HTTP, the
// guest's AUTH, and its EVENT, REQ and CLOSE (docs/reference/proxy.md §2, §3, §6).
#include "tools/proxy/proxy_service.h"

#include "engine/canonical.h"
#include "engine/channel.h"
#include "engine/clock.h"
#include "engine/event_parse.h"
#include "tools/proxy/client_auth.h"
#include "tools/proxy/proxy_messages.h"
#include "tools/proxy/proxy_state.h"
#include "tools/proxy/relay_fetch.h"
#include "tools/proxy/upstream_link.h"

namespace buzz::proxy {

namespace {

constexpr size_t kMaxPending = 1000;         // un-answered EVENTs per session (§2.3)
constexpr size_t kMaxSubscriptions = 1024;   // per client, as the relay (§2.2 decision)

}  // namespace

ProxyService::ProxyService(ProxyConfig config, ShadowKeys shadows)
    : config_(std::move(config)),
      server_pubkey_(engine::to_hex(config_.server_key.pubkey)),
      shadows_(std::move(shadows)),
      channels_(config_.server_key),
      translator_{channels_, ids_, shadows_, config_.relay_pubkey},
      admin_(guests_, config_.admin_secret, [this](const std::string& pk) { close_sessions_of(pk); }) {}

ProxyService::~ProxyService() = default;

void ProxyService::attach(net::Loop& loop, UpstreamLink& link, RelayFetch& fetch) {
  loop_ = &loop;
  link_ = &link;
  fetch_ = &fetch;
  last_refresh_ = engine::unix_now();
}

ProxyService::Session* ProxyService::session_of(net::Connection& conn) {
  return static_cast<Session*>(conn.context());
}

void ProxyService::send(uint64_t key, std::string_view text) {
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return;
  if (net::Connection* c = loop_->find(it->second->conn)) loop_->send_text(*c, text);
}

// --- HTTP ---

std::optional<net::HttpResponse> ProxyService::nip11(const net::HttpRequest&) const {
  std::string body = "{\n  \"name\": \"buzz-proxy\",\n  \"description\": \"Buzz NIP-28 guest proxy for standard Nostr clients\",\n"
                     "  \"supported_nips\": [\n    1,\n    11,\n    28,\n    42\n  ],\n  \"software\": \"buzz-proxy\",\n"
                     "  \"version\": ";
  engine::append_json_string(body, config_.version);
  body += ",\n  \"limitation\": {\n    \"auth_required\": true\n  }\n}";
  net::HttpResponse r;
  r.status = 200;
  r.content_type = "application/nostr+json";
  r.body = std::move(body);
  r.headers.emplace_back("Access-Control-Allow-Origin", "*");
  return r;
}

std::optional<net::HttpResponse> ProxyService::on_http(net::Loop&, net::Connection&, const net::HttpRequest& req) {
  if (auto r = admin_.handle(req, engine::unix_now())) return r;
  if (req.path == "/" && (req.method == "GET" || req.method == "HEAD")) return nip11(req);
  return net::HttpResponse::json(404, R"({"error":"not found"})");
}

bool ProxyService::on_upgrade(net::Loop&, const net::HttpRequest& req, net::HttpResponse* refusal) {
  if (req.path != "/") {
    *refusal = net::HttpResponse::json(404, R"({"error":"not found"})");
    return false;
  }
  upgrade_token_ = req.query_param("token");
  return true;
}

// --- the WebSocket ---

void ProxyService::on_open(net::Loop& loop, net::Connection& conn, const net::HttpRequest& /*upgrade*/) {
  auto s = std::make_unique<Session>();
  s->key = session_key(conn.id());
  s->conn = conn.id();
  s->challenge = engine::random_uuid();
  s->prefix = engine::random_uuid().substr(0, 8);
  s->token = std::exchange(upgrade_token_, {});
  s->opened_at = engine::unix_now();
  sessions_[s->key] = s.get();
  ++stats_.sessions;
  const std::string challenge = s->challenge;
  conn.set_context(std::move(s));
  loop.send_text(conn, auth_msg(challenge));
}

void ProxyService::on_close(net::Loop&, net::Connection& conn) {
  Session* s = session_of(conn);
  if (!s) return;
  std::vector<std::string> subs;
  for (const auto& [id, sub] : s->subs) subs.push_back(id);
  for (const std::string& id : subs) close_client_sub(*s, id);
  for (auto it = pending_ok_.begin(); it != pending_ok_.end();) {
    it = it->second.session == s->key ? pending_ok_.erase(it) : std::next(it);
  }
  if (s->authed) guest_left(*s);  // while its channels are still its session's
  sessions_.erase(s->key);
}

void ProxyService::on_tick(net::Loop& loop) {
  const uint64_t now = engine::unix_now();
  std::vector<net::ConnId> late;
  for (const auto& [key, s] : sessions_) {
    if (!s->authed && now - s->opened_at >= uint64_t(config_.auth_timeout_secs)) late.push_back(s->conn);
  }
  for (net::ConnId id : late) {
    net::Connection* c = loop.find(id);
    if (!c) continue;
    Session* s = session_of(*c);
    if (s && s->authed) continue;
    if (s) s->opened_at = UINT64_MAX / 2;  // noticed once
    loop.send_text(*c, notice_msg("auth-required: authentication timeout"));
    loop.close(*c);
  }
  if (config_.channel_refresh_secs > 0 && now - last_refresh_ >= uint64_t(config_.channel_refresh_secs)) {
    refresh_channels();
  }
  if (now - last_presence_ >= kPresenceRefreshSecs) refresh_presence();
}

void ProxyService::close_sessions_of(const std::string& pubkey) {
  std::vector<net::ConnId> ids;
  for (const auto& [key, s] : sessions_) {
    if (s->authed && s->pubkey == pubkey) ids.push_back(s->conn);
  }
  for (net::ConnId id : ids) {
    if (net::Connection* c = loop_->find(id)) {
      loop_->send_text(*c, notice_msg("restricted: guest access revoked"));
      loop_->close(*c);
    }
  }
}

void ProxyService::on_message(net::Loop& loop, net::Connection& conn, std::string_view text) {
  Session* s = session_of(conn);
  if (!s) return;
  simdjson::dom::parser& parser = client_parser_;
  simdjson::dom::array msg;
  std::string_view verb;
  if (parser.parse(text.data(), text.size()).get_array().get(msg) || msg.size() < 1 || msg.at(0).get_string().get(verb)) {
    if (s->authed) loop.send_text(conn, notice_msg("error: invalid message"));
    return;
  }
  if (verb == "AUTH") {
    simdjson::dom::element ev;
    if (s->authed || msg.size() < 2 || msg.at(1).get(ev) || !ev.is_object()) return;
    return handle_auth(*s, conn, ev, simdjson::minify(ev));
  }
  if (!s->authed) {
    // Before AUTH a REQ and an EVENT get their refusal; anything else is ignored.
    std::string_view sub;
    simdjson::dom::element ev;
    std::string_view id;
    if (verb == "REQ" && msg.size() >= 2 && !msg.at(1).get_string().get(sub)) {
      loop.send_text(conn, closed_msg(sub, "auth-required: authenticate before subscribing"));
    } else if (verb == "EVENT" && msg.size() >= 2 && !msg.at(1).get(ev) && !ev["id"].get_string().get(id)) {
      loop.send_text(conn, ok_msg(id, false, "auth-required: authenticate before sending events"));
    }
    return;
  }
  if (verb == "EVENT") {
    simdjson::dom::element ev;
    if (msg.size() < 2 || msg.at(1).get(ev) || !ev.is_object()) return (void)loop.send_text(conn, notice_msg("error: invalid message"));
    return handle_event(*s, conn, ev, simdjson::minify(ev));
  }
  if (verb == "REQ") return handle_req(*s, conn, msg);
  std::string_view sub;
  if (verb == "CLOSE") {
    if (msg.size() < 2 || msg.at(1).get_string().get(sub)) return (void)loop.send_text(conn, notice_msg("error: invalid message"));
    const std::string id(sub);
    if (s->subs.count(id)) close_client_sub(*s, id);
    loop.send_text(conn, closed_msg(sub, ""));
    return;
  }
  if (verb == "COUNT") {
    if (msg.size() >= 2 && !msg.at(1).get_string().get(sub)) {
      loop.send_text(conn, closed_msg(sub, "unsupported: COUNT is not available through the proxy"));
    }
    return;
  }
  loop.send_text(conn, notice_msg("error: invalid message"));
}

void ProxyService::handle_auth(Session& s, net::Connection& conn, simdjson::dom::element ev, std::string_view raw) {
  auto parsed = engine::parse_event(ev, raw);
  if (!parsed) return;  // not an event: ignored, like any unparseable frame before AUTH
  const engine::Event& e = *parsed;
  AuthExpectation x{s.challenge, engine::unix_now(), config_.auth_window_secs,
                    config_.relay_url_enforced ? config_.relay_url : std::string()};
  if (auto refused = check_client_auth(e, x)) return (void)loop_->send_text(conn, ok_msg(e.id_hex(), false, *refused));
  const std::string pubkey = e.pubkey_hex();
  std::vector<std::string> channels;
  if (const auto* registered = guests_.guest_channels(pubkey)) {
    channels = *registered;
  } else if (!s.token.empty()) {
    auto redeemed = guests_.redeem(s.token, engine::unix_now());
    if (!redeemed) {
      loop_->send_text(conn, notice_msg("error: token invalid: " + redeemed.error()));
      return loop_->close(conn);
    }
    channels = std::move(*redeemed);
  } else {
    loop_->send_text(conn, ok_msg(e.id_hex(), false, "restricted: pubkey not registered and no invite token provided"));
    return loop_->close(conn);
  }
  s.authed = true;
  s.pubkey = pubkey;
  s.allowed = ChannelSet(channels.begin(), channels.end());
  loop_->send_text(conn, ok_msg(e.id_hex(), true, ""));
  guest_joined(s);
}

void ProxyService::handle_event(Session& s, net::Connection& conn, simdjson::dom::element ev, std::string_view raw) {
  auto parsed = engine::parse_event(ev, raw);
  if (!parsed) {
    std::string_view id;
    if (!ev["id"].get_string().get(id)) loop_->send_text(conn, ok_msg(id, false, "invalid: " + parsed.error()));
    else loop_->send_text(conn, notice_msg("error: invalid message"));
    return;
  }
  const engine::Event& e = *parsed;
  const std::string id = e.id_hex();
  if (e.pubkey_hex() != s.pubkey) {
    return (void)loop_->send_text(conn, ok_msg(id, false, "invalid: event pubkey does not match authenticated identity"));
  }
  std::string reason;
  if (engine::check_event(e, &reason) != engine::EventCheck::kOk) {
    return (void)loop_->send_text(conn, ok_msg(id, false, "invalid: bad event signature"));
  }
  if (s.pending >= kMaxPending) return (void)loop_->send_text(conn, ok_msg(id, false, "error: too many pending events"));
  auto translated = translator_.inbound(e, s.allowed);
  if (!translated) return (void)loop_->send_text(conn, ok_msg(id, false, translated.error()));
  if (!upstream_authed_ && upstream_queue_.size() >= kUpstreamQueue) {
    return (void)loop_->send_text(conn, ok_msg(id, false, "error: upstream unavailable"));
  }
  const std::string internal = translated->id_hex();
  pending_ok_[internal] = PendingOk{s.key, id};
  ++s.pending;
  ++stats_.events_in;
  to_upstream("[\"EVENT\"," + translated->raw + "]");
}

void ProxyService::handle_req(Session& s, net::Connection& conn, simdjson::dom::array msg) {
  std::string_view sub_view;
  if (msg.size() < 2 || msg.at(1).get_string().get(sub_view)) return (void)loop_->send_text(conn, notice_msg("error: invalid message"));
  const std::string sub(sub_view);
  if (s.subs.count(sub)) close_client_sub(s, sub);  // a REQ with a live id replaces it
  if (s.subs.size() >= kMaxSubscriptions) return (void)loop_->send_text(conn, closed_msg(sub, "error: too many subscriptions"));
  std::vector<simdjson::dom::element> filters;
  for (size_t i = 2; i < msg.size(); ++i) filters.push_back(msg.at(i).value_unsafe());
  auto split = split_req(filters, channels_, ids_, s.allowed);
  if (!split) return (void)loop_->send_text(conn, closed_msg(sub, split.error()));

  // Kinds 40 and 41 from the channel map, at once.
  std::string frame;
  for (const LocalFilter& f : split->local) {
    for (const engine::Event* e : local_events(f, channels_, s.allowed, server_pubkey_)) {
      frame = "[\"EVENT\",";
      engine::append_json_string(frame, sub);
      frame += "," + e->raw + "]";
      loop_->send_text(conn, frame);
    }
  }
  ClientSub& cs = s.subs[sub];
  // History: one upstream REQ per channel, closed at its EOSE; live: shared.
  size_t n = 0;
  const bool parts = split->upstream.size() > 1;
  for (const auto& [channel, filters_of_channel] : split->upstream) {
    const std::string id = s.prefix + ":" + sub + (parts ? "#" + std::to_string(n++) : "");
    if (std::string history = join_history(filters_of_channel); !history.empty()) {
      cs.history.insert(id);
      history_[id] = HistoryRoute{s.key, sub};
      send_upstream_req(id, history);
    }
    join_live_sub(s, sub, filters_of_channel);
  }
  if (cs.history.empty()) loop_->send_text(conn, eose_msg(sub));  // nothing to replay
}

void ProxyService::close_client_sub(Session& s, const std::string& sub) {
  auto it = s.subs.find(sub);
  if (it == s.subs.end()) return;
  for (const std::string& id : it->second.history) {
    history_.erase(id);
    upstream_reqs_.erase(id);
    to_upstream(close_msg(id));
  }
  for (const std::string& key : it->second.live) leave_live_sub(s.key, sub, key);
  s.subs.erase(it);
}

}  // namespace buzz::proxy
